/* publishcmd: `arclamp-svg publish`, the object-store half of generate on
 * its own — sends the logs, graphs and index that changed (storepub.h)
 * without drawing anything. For a collector host that only publishes its
 * logs (its graphs are drawn elsewhere), and for a first upload by hand. */
#include "cli.h"
#include "commands.h"
#include "datadir.h"
#include "datarun.h"
#include "runstate.h"
#include "storepub.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fputs("Usage: arclamp-svg publish [--config FILE] [--data-dir DIR] [--verbose]\n"
          "\n"
          "Sends to the configured object store (object_store:) every trace log,\n"
          "graph and the index that changed since the store last confirmed it.\n"
          "\n"
          "  -c, --config FILE    configuration (default " GEN_CONFIG_DEFAULT_PATH
          " if it exists)\n"
          "  -d, --data-dir DIR   use DIR as data_dir\n"
          "  -v, --verbose        log every upload\n"
          "  -h, --help           print this help\n"
          "\n"
          "Exit status: 0 done; 1 some uploads failed (sent again next run), or\n"
          "nothing could be done; 2 bad command line; 75 another run held the lock\n"
          "for lock_timeout; 78 bad configuration (or no object_store configured).\n",
          out);
}

/* Opens the directories and publishes, the lock held. */
static int locked_publish(const struct gen_config *cfg, int data_fd, struct storepub_stats *st,
                          char *err, size_t errlen)
{
    char why[1024];
    int logs_fd = datadir_open(data_fd, cfg->data_dir, cfg->logs_dir, 1, why, sizeof why);
    int svgs_fd = logs_fd < 0 ? -1
                              : datadir_open(data_fd, cfg->data_dir, cfg->svgs_dir, 1, why,
                                             sizeof why);
    int rc = -1;
    if (svgs_fd < 0)
        snprintf(err, errlen, "%s", why);
    else
        rc = storepub_run(cfg, data_fd, logs_fd, svgs_fd, st, err, errlen);
    if (svgs_fd >= 0)
        runstate_note_store(cfg, st->logs + st->graphs + (size_t)st->index, st->bytes,
                            st->failed + (rc < 0), 0, 0);
    if (logs_fd >= 0)
        close(logs_fd);
    if (svgs_fd >= 0)
        close(svgs_fd);
    return rc;
}

static int publish(const struct gen_config *cfg, struct storepub_stats *st, char *err,
                   size_t errlen)
{
    struct datarun run;
    enum datarun_status ds = datarun_begin(cfg, 0, &run, err, errlen);
    if (ds == DATARUN_BUSY)
        runstate_note_skip(cfg, RUNSTATE_GENERATE);
    if (ds != DATARUN_OK)
        return ds == DATARUN_BUSY ? -2 : -1;
    int rc = locked_publish(cfg, run.data_fd, st, err, errlen);
    datarun_end(&run);
    return rc;
}

int cmd_publish(int argc, char **argv)
{
    static const struct option options[] = {
        {"config", required_argument, NULL, 'c'}, {"data-dir", required_argument, NULL, 'd'},
        {"verbose", no_argument, NULL, 'v'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *config = NULL, *data_dir = NULL;
    int verbose = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:d:vh", options, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'd': data_dir = optarg; break;
        case 'v': verbose = 1; break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        default: usage(stderr); return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "arclamp-svg publish: unexpected argument \"%s\"\n", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    struct gen_config cfg;
    char msg[1024];
    int rc = cli_load_config(config, data_dir, verbose, &cfg, msg, sizeof msg);
    if (msg[0])
        fprintf(stderr, "arclamp-svg publish: %s\n", msg);
    if (rc)
        return rc;
    if (cfg.store.conn.kind == OBJSTORE_NONE) {
        fprintf(stderr, "arclamp-svg publish: no object_store configured (object_store.type "
                        "is none)\n");
        gen_config_free(&cfg);
        return CLI_EXIT_CONFIG;
    }
    struct storepub_stats st;
    char err[2048];
    rc = publish(&cfg, &st, err, sizeof err);
    gen_config_free(&cfg);
    if (rc == -2) {
        fprintf(stderr, "arclamp-svg publish: %s; skipped, nothing done\n", err);
        return CLI_EXIT_BUSY;
    }
    if (rc < 0) {
        fprintf(stderr, "arclamp-svg publish: %s\n", err);
        return CLI_EXIT_FAILED;
    }
    strbuf line = STRBUF_INIT;
    storepub_summary(&st, &line);
    printf("arclamp-svg publish%s\n", strbuf_cstr(&line) + 1); /* drop the leading ';' */
    strbuf_free(&line);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILED;
}
