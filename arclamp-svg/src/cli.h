/* cli: what the generator's subcommands (generate, compress, metrics, top)
 * share on the command line: loading the configuration (--config,
 * --data-dir) with the error reported on stderr, and logging set up from
 * it. These functions print; the modules below them do not. */
#ifndef ARCLAMP_SVG_CLI_H
#define ARCLAMP_SVG_CLI_H

#include <stddef.h>

#include "gen_config.h"
#include "log.h"

/* Exit statuses of the subcommands. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILED 1    /* the work was done, but something failed */
#define CLI_EXIT_USAGE 2     /* bad command line */
#define CLI_EXIT_BUSY 75     /* EX_TEMPFAIL: another run holds the lock */
#define CLI_EXIT_CONFIG 78   /* EX_CONFIG: the configuration file is wrong */

/* Loads the configuration (see gen_config_load), prints
 * "arclamp-svg CMD: file:LINE: key: why" on failure and sets up logging
 * (ident "arclamp-svg", the configured log_target; `verbose` shows
 * LOG_INFO entries, else LOG_NOTICE and worse). Returns 0 or CLI_EXIT_CONFIG. */
int cli_load_config(const char *cmd, const char *path, const char *data_dir, int verbose,
                    struct gen_config *cfg);

/* Parses a number in [min, max]; prints "arclamp-svg CMD: --OPT: ..." and
 * returns -1 when it is not one. */
int cli_number(const char *cmd, const char *opt, const char *text, double min, double max,
               double *out);

#endif
