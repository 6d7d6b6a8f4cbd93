/* hprof_collect.c: zero-code hierarchical profiling of 1 in N requests
 * (excimer.hprof_sample_rate), each run sent at the end of the request
 * through the native transport (sender.c: a thread, never the request) in
 * the line format below, and/or written to xhprof.output_dir (or
 * uprofiler.output_dir) as
 * <runid>.xhprof.xhprof (PHP serialize() of the raw array: what xhprof_html
 * and XHGui's importers read).
 *
 * Wire format, version 1: one line per record, every line tagged with the
 * run, so a run split over several messages (a message holds at most
 * TRANSPORT_MESSAGE_MAX bytes of whole lines) is put back together:
 *   xhprof/1 RUNID begin UNIXTIME HOST FLAGS ENTRY
 *   xhprof/1 RUNID arc CT WT CPU MU PMU KEY
 *   xhprof/1 RUNID end ARCS_SENT ARCS_LEFT_OUT
 * FLAGS: the metrics measured ("wt,cpu,mu,pmu"; a metric not measured is
 * "-" in arc lines). KEY ("parent==>child", or "main()") and ENTRY are the
 * rest of the line, with '%', CR, LF and NUL written %25, %0D, %0A, %00;
 * HOST has no spaces. Arcs go heaviest (wt) first; past
 * excimer.hprof_max_bytes the rest are left out and counted in the end
 * line (the marker). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "ext/standard/php_var.h"
#include "zend_smart_str.h"

#include <fcntl.h>
#include <unistd.h>

#include "php_excimer.h"
#include "hprof.h"
#include "sender.h"
#include "timerlib.h"
#include "transport.h"

/* The flags of excimer.hprof_flags, a comma-separated list of words. */
unsigned excimer_hprof_flags_of_ini(const char *list)
{
    static const struct { const char *word; unsigned flags; } words[] = {
        {"cpu", HPROF_CPU}, {"mu", HPROF_MU}, {"pmu", HPROF_PMU},
        {"memory", HPROF_MU | HPROF_PMU}, {"no_builtins", HPROF_NO_BUILTINS},
        {"alloc", HPROF_ALLOC},
    };
    unsigned flags = 0;
    while (list && *list) {
        size_t n = strcspn(list, ", ");
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
            if (n == strlen(words[i].word) && strncmp(list, words[i].word, n) == 0)
                flags |= words[i].flags;
        }
        list += n;
        list += strspn(list, ", ");
    }
    return flags;
}

void excimer_hprof_collect_request_start(void)
{
    EXCIMER_G(hprof_auto) = false;
    zend_long rate = EXCIMER_G(hprof_sample_rate);
    if (rate <= 0 || excimer_hprof_running())
        return;
    if (rate > 1 && timerlib_random() * (double)rate >= 1.0)
        return;
    if (excimer_hprof_start(excimer_hprof_flags_of_ini(EXCIMER_G(hprof_flags)), NULL) == SUCCESS) {
        EXCIMER_G(hprof_auto) = true;
        /* Now: php-fpm frees the script's path before the request's shutdown. */
        EXCIMER_G(hprof_entry) = excimer_request_entry_point();
    }
}

static void append_escaped(smart_str *s, const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '%' || c == '\r' || c == '\n' || c == '\0')
            smart_str_append_printf(s, "%%%02X", c);
        else
            smart_str_appendc(s, (char)c);
    }
}

static void append_metric(smart_str *s, HashTable *v, const char *key)
{
    zval *m = zend_hash_str_find(v, key, strlen(key));
    smart_str_appendc(s, ' ');
    if (m && Z_TYPE_P(m) == IS_LONG)
        smart_str_append_long(s, Z_LVAL_P(m));
    else
        smart_str_appendc(s, '-');
}

static zend_long wt_of(zval *v)
{
    zval *wt = Z_TYPE_P(v) == IS_ARRAY ? zend_hash_str_find(Z_ARRVAL_P(v), "wt", 2) : NULL;
    return wt && Z_TYPE_P(wt) == IS_LONG ? Z_LVAL_P(wt) : 0;
}

static int by_wt_descending(Bucket *a, Bucket *b)
{
    zend_long x = wt_of(&a->val), y = wt_of(&b->val);
    return x < y ? 1 : (x > y ? -1 : 0);
}

/* The run as lines of the wire format; *nlines counts them. */
static zend_string *run_lines(zval *run, const char *runid, const char *entry, size_t *nlines)
{
    char host[256];
    excimer_host_field(host, sizeof host);
    unsigned flags = excimer_hprof_flags_of_ini(EXCIMER_G(hprof_flags));
    smart_str s = {0};
    smart_str_append_printf(&s, "xhprof/1 %s begin %lld %s wt%s%s%s ", runid,
                            (long long)time(NULL), host, flags & HPROF_CPU ? ",cpu" : "",
                            flags & HPROF_MU ? ",mu" : "", flags & HPROF_PMU ? ",pmu" : "");
    append_escaped(&s, entry, strlen(entry));
    smart_str_appendc(&s, '\n');
    *nlines = 1;

    zval sorted;
    ZVAL_ARR(&sorted, zend_array_dup(Z_ARRVAL_P(run)));
    zend_hash_sort(Z_ARRVAL(sorted), by_wt_descending, 0);
    size_t cap = EXCIMER_G(hprof_max_bytes) > 0 ? (size_t)EXCIMER_G(hprof_max_bytes) : SIZE_MAX;
    zend_long sent = 0, left = 0;
    zend_string *key;
    zval *v;
    ZEND_HASH_FOREACH_STR_KEY_VAL(Z_ARRVAL(sorted), key, v) {
        if (!key || Z_TYPE_P(v) != IS_ARRAY)
            continue;
        size_t before = s.s ? ZSTR_LEN(s.s) : 0;
        smart_str_append_printf(&s, "xhprof/1 %s arc", runid);
        append_metric(&s, Z_ARRVAL_P(v), "ct");
        append_metric(&s, Z_ARRVAL_P(v), "wt");
        append_metric(&s, Z_ARRVAL_P(v), "cpu");
        append_metric(&s, Z_ARRVAL_P(v), "mu");
        append_metric(&s, Z_ARRVAL_P(v), "pmu");
        smart_str_appendc(&s, ' ');
        append_escaped(&s, ZSTR_VAL(key), ZSTR_LEN(key));
        smart_str_appendc(&s, '\n');
        if (ZSTR_LEN(s.s) > cap) { /* over the cap: this and the rest are left out */
            ZSTR_LEN(s.s) = before;
            left++;
            continue;
        }
        sent++;
        (*nlines)++;
    } ZEND_HASH_FOREACH_END();
    zval_ptr_dtor(&sorted);
    smart_str_append_printf(&s, "xhprof/1 %s end " ZEND_LONG_FMT " " ZEND_LONG_FMT, runid, sent,
                            left);
    (*nlines)++;
    smart_str_0(&s);
    return s.s;
}

static void write_run_file(zval *run, const char *runid)
{
    const char *dir = zend_ini_string_ex("xhprof.output_dir", sizeof("xhprof.output_dir") - 1, 0,
                                         NULL);
    if (!dir || !*dir)
        dir = zend_ini_string_ex("uprofiler.output_dir", sizeof("uprofiler.output_dir") - 1, 0,
                                 NULL);
    if (!dir || !*dir)
        return;
    char path[MAXPATHLEN];
    if (snprintf(path, sizeof path, "%s/%s.xhprof.xhprof", dir, runid) >= (int)sizeof path)
        return;
    smart_str buf = {0};
    php_serialize_data_t data;
    PHP_VAR_SERIALIZE_INIT(data);
    php_var_serialize(&buf, run, &data);
    PHP_VAR_SERIALIZE_DESTROY(data);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd >= 0 && buf.s) {
        size_t off = 0;
        while (off < ZSTR_LEN(buf.s)) {
            ssize_t n = write(fd, ZSTR_VAL(buf.s) + off, ZSTR_LEN(buf.s) - off);
            if (n <= 0)
                break;
            off += (size_t)n;
        }
    }
    if (fd >= 0)
        close(fd);
    smart_str_free(&buf);
}

static void collect_run(zval *run, const char *entry);

bool excimer_hprof_collect_skip(void)
{
    if (!EXCIMER_G(hprof_auto))
        return false;
    EXCIMER_G(hprof_auto) = false;
    zval run;
    excimer_hprof_stop(&run);
    zval_ptr_dtor(&run);
    if (EXCIMER_G(hprof_entry)) {
        zend_string_release(EXCIMER_G(hprof_entry));
        EXCIMER_G(hprof_entry) = NULL;
    }
    return true;
}

void excimer_hprof_collect_request_end(void)
{
    if (!EXCIMER_G(hprof_auto))
        return;
    EXCIMER_G(hprof_auto) = false;
    zend_string *entry = EXCIMER_G(hprof_entry);
    EXCIMER_G(hprof_entry) = NULL;
    zval run;
    excimer_hprof_stop(&run);
    /* not an array: the script took the run over (xhprof_disable()) */
    if (Z_TYPE(run) == IS_ARRAY)
        collect_run(&run, entry ? ZSTR_VAL(entry) : "unknown");
    zval_ptr_dtor(&run);
    if (entry)
        zend_string_release(entry);
}

static void collect_run(zval *run, const char *entry)
{
    char runid[32];
    snprintf(runid, sizeof runid, "%08x%08x", (unsigned)(timerlib_random() * 4294967296.0),
             (unsigned)(timerlib_random() * 4294967296.0));
    write_run_file(run, runid);
    transport_target t;
    if (excimer_target_for(EXCIMER_G(hprof_target), "excimer.hprof_target", "xhprof", &t) == 0) {
        size_t nlines;
        zend_string *lines = run_lines(run, runid, entry, &nlines);
        char *text = malloc(ZSTR_LEN(lines) + 1);
        if (text) {
            memcpy(text, ZSTR_VAL(lines), ZSTR_LEN(lines) + 1);
            sender_submit(&t, text, ZSTR_LEN(lines), nlines, EXCIMER_G(arclamp_timeout),
                          EXCIMER_G(arclamp_send_delay));
            EXCIMER_G(hprof_runs_sent)++;
        }
        zend_string_release(lines);
    }
}
