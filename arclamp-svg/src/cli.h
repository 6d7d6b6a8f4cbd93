/* cli: what the generator's subcommands (generate, compress, metrics, top)
 * share on the command line: loading the configuration (--config,
 * --data-dir) and logging set up from it, numbers of options. Like the
 * modules below them, these functions do not print: they hand back the
 * message, and the command's entry function (cmd_*) prints it on stderr as
 * "arclamp-svg CMD: MESSAGE". */
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

/* Loads the configuration (see gen_config_load) and sets up logging (ident
 * "arclamp-svg", the configured log_target; `verbose` shows LOG_INFO
 * entries, else LOG_NOTICE and worse). Returns CLI_EXIT_CONFIG with msg
 * "file:LINE: key: why", or 0 with msg empty or a note to print (nothing
 * configured and the built-in data_dir missing). */
int cli_load_config(const char *path, const char *data_dir, int verbose, struct gen_config *cfg,
                    char *msg, size_t msglen);

/* Parses a number in [min, max]; returns -1 with err "--OPT: ..." when it is
 * not one. */
int cli_number(const char *opt, const char *text, double min, double max, double *out,
               char *err, size_t errlen);

#endif
