/* indexcmds: the index page's "Open in pprof, speedscope or compare"
 * section: `arclamp-svg export` and `diff` command lines filled in for this
 * installation, to copy into a shell on the server.
 *
 * Commands, not a web form: an export on request would let any visitor of
 * the page spend the server's CPU and memory on ranges of their choosing,
 * which nothing here bounds per visitor (see arclamp-svg/README.md). Every
 * name in a command is shell-quoted (a hostile entry point or file name
 * stays one inert argument when pasted) and then HTML-escaped. */
#ifndef ARCLAMP_SVG_INDEXCMDS_H
#define ARCLAMP_SVG_INDEXCMDS_H

#include <stddef.h>
#include <time.h>

#include "logset.h"
#include "strbuf.h"

/* Where this installation's logs are, as a command on the server names
 * them (absolute when they could be resolved). */
struct index_cmds {
    const char *config;     /* the configuration the job ran with, or NULL */
    const char *data_dir;   /* its data_dir */
    int data_dir_given;     /* data_dir came from --data-dir, not the config */
    const char *logs_dir;   /* its logs_dir */
};

/* Appends s quoted for a POSIX shell: as it is when made of
 * [A-Za-z0-9_./:=@%+,-] only, else in single quotes ('\'' for a quote). */
void shell_quote(strbuf *out, const char *s);

/* Appends the path of log lf, <logs_dir>/<period>/<file>, unquoted. */
void index_log_path(strbuf *out, const struct index_cmds *c, const struct logfile *lf);

/* Appends the HTML section; `logs` are the index's logs in page order
 * (newest first within an entry point), `now` the generation time (the
 * export covers the 24 hours up to its hour, that one included). */
void index_cmds_html(strbuf *out, const struct index_cmds *c, const struct logfile *const *logs,
                     size_t n, time_t now);

#endif
