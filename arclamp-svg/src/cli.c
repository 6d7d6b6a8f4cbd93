/* cli: shared command-line helpers of the generator's subcommands. See cli.h. */
#include "cli.h"
#include "log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_load_config(const char *path, const char *data_dir, int verbose, struct gen_config *cfg,
                    char *msg, size_t msglen)
{
    msg[0] = '\0';
    if (gen_config_load(path, data_dir, cfg, msg, msglen) < 0)
        return CLI_EXIT_CONFIG;
    /* Nothing configured and nothing there: say where it looked and why, as
     * the built-in default (the original Arc Lamp's) is not the packages'. */
    if (!path && !data_dir && access(GEN_CONFIG_DEFAULT_PATH, F_OK) != 0 &&
        access(cfg->data_dir, F_OK) != 0)
        snprintf(msg, msglen,
                 "note: %s does not exist, so data_dir is the built-in default "
                 "%s (the original Arc Lamp's), which does not exist either; the Debian "
                 "packages use /var/lib/arclamp (--data-dir DIR or --config FILE)",
                 GEN_CONFIG_DEFAULT_PATH, cfg->data_dir);
    log_setup("arclamp-svg", (enum log_target)log_target_from_name(cfg->log_target));
    log_set_max_priority(verbose ? LOG_INFO : LOG_NOTICE);
    return 0;
}

int cli_number(const char *opt, const char *text, double min, double max, double *out,
               char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < min || v > max) {
        snprintf(err, errlen, "--%s: expected a number from %g to %g, got \"%s\"", opt, min, max,
                 text);
        return -1;
    }
    *out = v;
    return 0;
}
