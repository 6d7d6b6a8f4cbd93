/* indexcmds: the command lines of the index page. See indexcmds.h.
 *
 * The section shows three commands: the last 24 hours of every entry point
 * as pprof, of one entry point (the first one of the page other than "all")
 * as speedscope, and a differential graph of the two newest logs of one
 * entry point in one period. The names in them come from the log files, so
 * each is quoted for the shell first and the whole command HTML-escaped
 * after: the page shows exactly the text a shell reads as those arguments. */
#include "indexcmds.h"
#include "xmlesc.h"

#include <string.h>

void shell_quote(strbuf *out, const char *s)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_./:=@%+,-";
    if (*s && strspn(s, safe) == strlen(s)) {
        strbuf_appends(out, s);
        return;
    }
    strbuf_appendc(out, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            strbuf_appends(out, "'\\''");
        else
            strbuf_appendc(out, *s);
    }
    strbuf_appendc(out, '\'');
}

void index_log_path(strbuf *out, const struct index_cmds *c, const struct logfile *lf)
{
    strbuf_appendf(out, "%s/%s/%s", c->logs_dir, lf->period, lf->file);
}

/* " --config FILE" and/or " --data-dir DIR": the logs the job read. */
static void where(strbuf *cmd, const struct index_cmds *c)
{
    if (c->config) {
        strbuf_appends(cmd, " --config ");
        shell_quote(cmd, c->config);
    }
    if (!c->config || c->data_dir_given) {
        strbuf_appends(cmd, " --data-dir ");
        shell_quote(cmd, c->data_dir);
    }
}

/* <pre><code>cmd</code></pre>, escaped line by line (xml_escape makes a
 * newline U+FFFD; one inside a quoted name stays so, and stays inert). */
static void code_block(strbuf *out, const strbuf *cmd, const char *next_line)
{
    strbuf_appends(out, "<pre><code>");
    xml_escape(out, cmd->data, cmd->len);
    if (next_line) {
        strbuf_appendc(out, '\n');
        xml_escape(out, next_line, strlen(next_line));
    }
    strbuf_appends(out, "</code></pre>\n");
}

/* The first entry point other than "all" with a time in its name; NULL
 * when there is none. */
static const char *some_entrypoint(const struct logfile *const *logs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (logs[i]->time_from_name && strcmp(logs[i]->entrypoint, "all") != 0)
            return logs[i]->entrypoint;
    return NULL;
}

/* The first two logs in a row of the same period and entry point (the page
 * lists them newest first): *after the newer. 0, or -1 when none. */
/* The newest log and the one before it of the same period and entry point
 * (the page lists logs by period, date newest first, then entry point, so
 * the two may be a whole date group apart: yesterday's 23:00 and today's
 * 00:00). Only the first few logs are tried as the newer one, each against
 * the rest: a bounded K x n scan however many logs the page lists. */
#define DIFF_PAIR_TRIES 8
static int diff_pair(const struct logfile *const *logs, size_t n, const struct logfile **before,
                     const struct logfile **after)
{
    for (size_t i = 0; i < n && i < DIFF_PAIR_TRIES; i++) {
        const struct logfile *a = logs[i];
        for (size_t j = i + 1; j < n; j++) {
            const struct logfile *b = logs[j];
            if (strcmp(a->period, b->period) != 0)
                break; /* periods are listed one after the other */
            if (strcmp(a->entrypoint, b->entrypoint) == 0) {
                *after = a;
                *before = b;
                return 0;
            }
        }
    }
    return -1;
}

static void hour_text(char *buf, size_t len, time_t t)
{
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(buf, len, "%Y-%m-%dT%H", &tm) == 0)
        buf[0] = '\0';
}

static void export_cmd(strbuf *cmd, const struct index_cmds *c, const char *format,
                       const char *from, const char *to, const char *entrypoint,
                       const char *output)
{
    strbuf_appendf(cmd, "arclamp-svg export --format %s", format);
    where(cmd, c);
    strbuf_appendf(cmd, " --from %s --to %s", from, to);
    if (entrypoint) {
        strbuf_appends(cmd, " --entrypoint ");
        shell_quote(cmd, entrypoint);
    }
    strbuf_appendf(cmd, " -o %s", output);
}

void index_cmds_html(strbuf *out, const struct index_cmds *c, const struct logfile *const *logs,
                     size_t n, time_t now)
{
    char from[32], to[32];
    time_t hour = now - now % 3600;
    hour_text(from, sizeof from, hour - 23 * 3600);
    hour_text(to, sizeof to, hour + 3600);
    strbuf cmd = STRBUF_INIT;
    strbuf_appends(out, "<div id=\"commands\">\n<h2>Open in pprof, speedscope or compare</h2>\n"
                        "<p>Run these on this server (they read the trace logs below; "
                        "<code>arclamp-svg export --help</code>, <code>arclamp-svg diff "
                        "--help</code>). They are commands rather than a form on this page "
                        "because an export reads hours of logs: a web endpoint would let any "
                        "visitor spend the server's CPU and memory on ranges of their "
                        "choosing. The last 24 hours (to this page's hour, included) of every "
                        "entry point as pprof:</p>\n");
    export_cmd(&cmd, c, "pprof", from, to, NULL, "profile.pb.gz");
    code_block(out, &cmd, "go tool pprof -http=: profile.pb.gz");

    const char *ep = some_entrypoint(logs, n);
    strbuf_appends(out, "<p>One entry point as speedscope (open the file on "
                        "https://www.speedscope.app or with <code>speedscope FILE</code>):</p>\n");
    strbuf_reset(&cmd);
    export_cmd(&cmd, c, "speedscope", from, to, ep ? ep : "index", "profile.speedscope.json");
    code_block(out, &cmd, NULL);

    const struct logfile *before, *after;
    strbuf_appends(out, "<p>Compare two logs (red: grew, blue: shrank); any two paths of the "
                        "<i>Log</i> column below:</p>\n");
    strbuf_reset(&cmd);
    strbuf_appends(&cmd, "arclamp-svg diff ");
    if (diff_pair(logs, n, &before, &after) == 0) {
        strbuf path = STRBUF_INIT;
        index_log_path(&path, c, before);
        shell_quote(&cmd, strbuf_cstr(&path));
        strbuf_reset(&path);
        index_log_path(&path, c, after);
        strbuf_appendc(&cmd, ' ');
        shell_quote(&cmd, strbuf_cstr(&path));
        strbuf_free(&path);
    } else {
        strbuf_appends(&cmd, "BEFORE.log AFTER.log");
    }
    strbuf_appends(&cmd, " -o diff.svg");
    code_block(out, &cmd, NULL);
    strbuf_appends(out, "</div>\n");
    strbuf_free(&cmd);
}
