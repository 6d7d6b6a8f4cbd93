/* logpick: choosing a data directory's trace logs for time ranges (see
 * logpick.h). The wording of the lines is export's, which its tests and
 * users read; diff adds only a label naming the side. */
#include "logpick.h"

#include "cli.h"
#include "exportsel.h"
#include "storesrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOUR 3600
#define DAY 86400

/* One end of a range: its time, and its text copied for messages. */
static int parse_end(const char *text, size_t len, int64_t *t, char *out, size_t outlen)
{
    if (len == 0 || len >= outlen)
        return -1;
    memcpy(out, text, len);
    out[len] = '\0';
    return export_parse_time(out, t);
}

int logpick_parse_range(const char *text, struct logpick_range *r)
{
    memset(r, 0, sizeof *r);
    const char *dots = strstr(text, "..");
    if (dots) {
        if (parse_end(text, (size_t)(dots - text), &r->from, r->from_text,
                      sizeof r->from_text) < 0 ||
            parse_end(dots + 2, strlen(dots + 2), &r->to, r->to_text, sizeof r->to_text) < 0)
            return -1;
        return r->from < r->to ? 0 : -1;
    }
    size_t len = strlen(text);
    if (parse_end(text, len, &r->from, r->from_text, sizeof r->from_text) < 0)
        return -1;
    /* A lone day is that day, a lone hour that hour; the end is written in
     * the same form, so messages read "from 2026-12-01 to 2026-12-02". */
    int is_day = len == 10;
    r->to = r->from + (is_day ? DAY : HOUR);
    time_t end = (time_t)r->to;
    struct tm tm;
    gmtime_r(&end, &tm);
    strftime(r->to_text, sizeof r->to_text, is_day ? "%Y-%m-%d" : "%Y-%m-%dT%H", &tm);
    return 0;
}

void logpick_entrypoints_text(char *const *entrypoints, size_t n, strbuf *out)
{
    if (n == 0)
        strbuf_appends(out, "all");
    for (size_t i = 0; i < n; i++)
        strbuf_appendf(out, "%s%s", i ? ", " : "", entrypoints[i]);
}

/* Every host's logs merged from the store into logs_dir (storesrc.h); its
 * line in msgs. 0, or -1 with err set when the command must not go on (it
 * would miss samples without saying so). */
static int fetch(const struct logpick_source *src, const struct gen_config *cfg, strbuf *msgs,
                 char *err, size_t errlen)
{
    char why[1024];
    struct storemerge_stats st = {0, 0, 0, 0, 0, 0, 0};
    if (storesrc_fetch(cfg, &st, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s (%s; --no-fetch uses the logs merged before)", why,
                 src->nothing ? src->nothing : "nothing done");
        return -1;
    }
    strbuf_appendf(msgs, "arclamp-svg %s: merged every host's logs", src->command);
    storemerge_summary(&st, "logs", msgs);
    strbuf_appends(msgs, "\n");
    return 0;
}

int logpick_open(struct logpick *lp, const struct logpick_source *src, strbuf *msgs, char *err,
                 size_t errlen)
{
    memset(lp, 0, sizeof *lp);
    lp->command = src->command;
    err[0] = '\0';
    char note[1024];
    int rc = cli_load_config(src->config, src->data_dir, 0, &lp->cfg, note, sizeof note);
    if (rc != 0) {
        snprintf(err, errlen, "%s", note);
        return rc;
    }
    if (note[0])
        strbuf_appendf(msgs, "arclamp-svg %s: %s\n", src->command, note);
    lp->opened = 1;
    if (storesrc_enabled(&lp->cfg) && !src->no_fetch && fetch(src, &lp->cfg, msgs, err,
                                                              errlen) < 0)
        return CLI_EXIT_FAILED;
    if (logset_scan(&lp->cfg, NULL, &lp->set, err, errlen) < 0) {
        memset(&lp->set, 0, sizeof lp->set);   /* nothing to free */
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}

/* The line saying what sel holds. */
static void describe(const struct logpick *lp, const struct export_selection *sel,
                     const char *label, const char *eps, const struct logpick_range *r,
                     strbuf *msgs)
{
    strbuf_appendf(msgs, "arclamp-svg %s: %s%zu log%s (%zu daily, %zu hourly) of entry "
                   "point %s from %s to %s", lp->command, label, sel->n, sel->n == 1 ? "" : "s",
                   sel->daily, sel->hourly, eps, r->from_text, r->to_text);
    if (sel->missing_hours)
        strbuf_appendf(msgs, "; %zu of %zu hours have no log", sel->missing_hours, sel->hours);
    if (sel->duplicates)
        strbuf_appendf(msgs, "; %zu logs of buckets found in another period left out",
                       sel->duplicates);
    strbuf_appends(msgs, "\n");
}

int logpick_choose(const struct logpick *lp, const struct logpick_range *r,
                   char *const *entrypoints, size_t nentrypoints, const char *label,
                   char ***paths, size_t *npaths, strbuf *msgs, char *err, size_t errlen)
{
    struct export_selection sel;
    export_select(&lp->set, r->from, r->to, entrypoints, nentrypoints, &sel);
    strbuf eps = STRBUF_INIT;
    logpick_entrypoints_text(entrypoints, nentrypoints, &eps);
    int rc = CLI_EXIT_OK;
    if (sel.n == 0) {
        snprintf(err, errlen, "%sno trace logs of entry point %s from %s to %s under %s", label,
                 strbuf_cstr(&eps), r->from_text, r->to_text, lp->cfg.logs_dir);
        rc = CLI_EXIT_FAILED;
    } else {
        describe(lp, &sel, label, strbuf_cstr(&eps), r, msgs);
        *paths = xcalloc(sel.n, sizeof **paths);
        for (size_t i = 0; i < sel.n; i++) {
            const struct logfile *lf = &lp->set.files[sel.chosen[i]];
            strbuf path = STRBUF_INIT;
            strbuf_appendf(&path, "%s/%s/%s", lp->cfg.logs_dir, lf->period, lf->file);
            (*paths)[i] = (char *)strbuf_cstr(&path);   /* owned by paths from here */
        }
        *npaths = sel.n;
    }
    strbuf_free(&eps);
    free(sel.chosen);
    return rc;
}

void logpick_close(struct logpick *lp)
{
    if (!lp->opened)
        return;
    logset_free(&lp->set);
    gen_config_free(&lp->cfg);
    lp->opened = 0;
}

void logpick_free_paths(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}
