/* runlog: the run logs of the fleet, summed run by run (see runlog.h). */
#include "runlog.h"
#include "runline.h"
#include "strbuf.h"
#include "xhprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The run being read: its arcs wait here until its end line says it is
 * whole. */
struct current {
    run r;
    char runid[RUNLINE_RUNID_MAX + 1];
    int open;
    size_t arcs;
    int64_t time;
};

static const int metric_of_field[RL_NMETRICS] = {M_CT, M_WT, M_CPU, M_MU, M_PMU};

static void current_reset(struct current *c, size_t max_arcs)
{
    run_free(&c->r);
    run_init(&c->r, max_arcs);
    c->open = 0;
    c->arcs = 0;
}

static int same_run(const struct current *c, const struct runline *rl)
{
    return c->open && strlen(c->runid) == rl->runid_len &&
           memcmp(c->runid, rl->runid, rl->runid_len) == 0;
}

static void on_begin(struct current *c, const struct runline *rl, struct runlog_stats *st)
{
    if (c->open)
        st->incomplete++;
    current_reset(c, c->r.max_arcs);
    memcpy(c->runid, rl->runid, rl->runid_len);
    c->runid[rl->runid_len] = '\0';
    c->open = 1;
    c->time = rl->time;
}

static void on_arc(struct current *c, const struct runline *rl, struct runlog_stats *st,
                   char *scratch)
{
    size_t klen = runline_unescape(rl->text, rl->text_len, scratch);
    c->arcs++;
    arc *a = run_arc(&c->r, scratch, klen, 1);
    if (!a) {
        st->arcs_left_out++;
        return;
    }
    int is_main = klen == 6 && memcmp(scratch, "main()", 6) == 0;
    for (int m = 0; m < RL_NMETRICS; m++) {
        if (!(rl->present & (1u << m)))
            continue;
        a->v[metric_of_field[m]] += (double)rl->v[m];
        a->present |= 1u << metric_of_field[m];
        if (is_main)
            c->r.metrics |= 1u << metric_of_field[m];
    }
}

static void on_end(run *agg, struct current *c, const struct runline *rl,
                   struct runlog_stats *st)
{
    if (rl->sent < 0 || (size_t)rl->sent != c->arcs) {
        st->incomplete++;
    } else {
        st->arcs_left_out += run_add_weighted(agg, &c->r, 1.0) + (size_t)rl->left_out;
        st->runs++;
        if (!st->first || c->time < st->first)
            st->first = c->time;
        if (c->time > st->last)
            st->last = c->time;
    }
    current_reset(c, c->r.max_arcs);
}

static void on_line(run *agg, struct current *c, const char *line, size_t len,
                    struct runlog_stats *st, char *scratch)
{
    struct runline rl;
    if (!runline_is_run(line, len) || runline_parse(line, len, &rl) != RUNLINE_OK) {
        st->bad_lines++;
        return;
    }
    if (rl.kind == RUNLINE_BEGIN) {
        on_begin(c, &rl, st);
    } else if (!same_run(c, &rl)) {
        st->bad_lines++; /* an arc or end of no run begun here */
    } else if (rl.kind == RUNLINE_ARC) {
        on_arc(c, &rl, st, scratch);
    } else {
        on_end(agg, c, &rl, st);
    }
}

int runlog_add(run *agg, const char *path, size_t max_bytes, struct runlog_stats *st, char *err,
               size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct current c;
    memset(&c, 0, sizeof c);
    run_init(&c.r, agg->max_arcs);
    char *buf = xmalloc(RUNLOG_LINE_MAX + 1), *scratch = xmalloc(RUNLOG_LINE_MAX);
    size_t have = 0, total = 0;
    int rc = 0, skipping = 0;
    for (;;) {
        size_t want = RUNLOG_LINE_MAX - have;
        if (max_bytes - total < want)
            want = max_bytes - total;
        ssize_t n = want ? read(fd, buf + have, want) : 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            rc = -1;
            break;
        }
        total += (size_t)n;
        have += (size_t)n;
        size_t start = 0;
        for (char *nl; (nl = memchr(buf + start, '\n', have - start)); start = (size_t)(nl - buf) + 1) {
            if (!skipping)
                on_line(agg, &c, buf + start, (size_t)(nl - buf) - start, st, scratch);
            skipping = 0;
        }
        memmove(buf, buf + start, have - start);
        have -= start;
        if (n == 0)
            break; /* a last line without its newline is torn: not read */
        if (have == RUNLOG_LINE_MAX) { /* a line too long for any writer: skip it */
            st->bad_lines++;
            have = 0;
            skipping = 1;
        }
    }
    if (c.open)
        st->incomplete++;
    run_free(&c.r);
    free(buf);
    free(scratch);
    close(fd);
    return rc;
}

int runlog_sniff(const char *path)
{
    char head[RUNLINE_PREFIX_LEN];
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n == (ssize_t)sizeof head && runline_is_run(head, sizeof head);
}
