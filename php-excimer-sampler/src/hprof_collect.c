/* hprof_collect.c: zero-code hierarchical profiling of 1 in N requests
 * (excimer.hprof_sample_rate), each run sent at the end of the request
 * through the native transport (sender.c: a thread, never the request) as
 * the lines of common/src/runline.h (xhprof/2: each function named once,
 * arcs by number, heaviest first; past excimer.hprof_max_bytes the rest are
 * left out and counted in the end line), written from the profiler's own
 * tables (hprof_output.c); and/or written to xhprof.output_dir (or
 * uprofiler.output_dir) as <runid>.xhprof.xhprof (PHP serialize() of the
 * raw array: what xhprof_html and XHGui's importers read), through
 * common/src/atomicfile: a reader, or a full disk, never leaves a part. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "ext/standard/php_var.h"
#include "zend_smart_str.h"

#include <sys/stat.h>

#include "atomicfile.h"
#include "php_excimer.h"
#include "hprof.h"
#include "layout.h"
#include "sender.h"
#include "strbuf.h"
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
    if (rate <= 0 || !EXCIMER_G(hprof_enabled) || excimer_hprof_running())
        return; /* (excimer.hprof = 0 with a rate was said at start-up) */
    if (rate > 1 && timerlib_random() * (double)rate >= 1.0)
        return;
    if (excimer_hprof_start(excimer_hprof_flags_of_ini(EXCIMER_G(hprof_flags)), NULL) == SUCCESS) {
        EXCIMER_G(hprof_auto) = true;
        /* Now: php-fpm frees the script's path before the request's shutdown. */
        EXCIMER_G(hprof_entry) = excimer_request_entry_point();
    }
}

/* The output directory (xhprof.output_dir, else uprofiler.output_dir) and
 * the setting it came from; NULL when neither is set. */
static const char *output_dir(const char **ini)
{
    static const char *const names[] = {"xhprof.output_dir", "uprofiler.output_dir"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *dir = zend_ini_string_ex(names[i], strlen(names[i]), 0, NULL);
        if (dir && *dir) {
            *ini = names[i];
            return dir;
        }
    }
    return NULL;
}

/* Writes `len` bytes to `path` under a temporary name in the same directory
 * and renames it, so a reader (xhprof_html) never takes a part for a run;
 * a failure (a full disk) leaves nothing and says so, once per run. */
static void save_file(const char *ini, const char *path, const char *data, size_t len)
{
    char err[MAXPATHLEN + 128];
    struct atomic_file *af = atomic_open(path, ATOMIC_NO_SYNC, 0, err, sizeof err);
    if (!af) {
        php_error_docref(NULL, E_WARNING, "%s: %s; the run was not saved", ini, err);
        return;
    }
    struct stat st;
    if (fstat(atomic_fd(af), &st) == 0) {
        /* at most 0640 as before (umask applied): a run shows the
         * application's function names, not for every local user */
        (void)fchmod(atomic_fd(af), st.st_mode & 0640);
    }
    atomic_append(af, data, len);
    if (atomic_commit(af, NULL, err, sizeof err) < 0)
        php_error_docref(NULL, E_WARNING, "%s: %s; the run was not saved", ini, err);
}

static void write_run_file(zval *run, const char *runid)
{
    const char *ini;
    const char *dir = output_dir(&ini);
    if (!dir)
        return;
    char path[MAXPATHLEN];
    if (snprintf(path, sizeof path, "%s/%s.xhprof.xhprof", dir, runid) >= (int)sizeof path) {
        php_error_docref(NULL, E_WARNING, "%s: the path is too long; the run was not saved",
                         ini);
        return;
    }
    smart_str buf = {0};
    php_serialize_data_t data;
    PHP_VAR_SERIALIZE_INIT(data);
    php_var_serialize(&buf, run, &data);
    PHP_VAR_SERIALIZE_DESTROY(data);
    if (buf.s)
        save_file(ini, path, ZSTR_VAL(buf.s), ZSTR_LEN(buf.s));
    smart_str_free(&buf);
}

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

/* Stops the run and sends it (and writes it to the output directory);
 * nothing when the script took the run over (xhprof_disable()). */
static void collect_run(const char *entry)
{
    char runid[32];
    timerlib_random_id(runid);
    transport_target t;
    bool send = excimer_target_for(EXCIMER_G(hprof_target), "excimer.hprof_target", LAYOUT_CHANNEL_RUNS,
                                   &t) == 0;
    const char *ini;
    bool write = output_dir(&ini) != NULL;
    zval array;
    ZVAL_UNDEF(&array);
    strbuf lines = STRBUF_INIT;
    uint64_t left_out = 0;
    size_t cap = EXCIMER_G(hprof_max_bytes) > 0 ? (size_t)EXCIMER_G(hprof_max_bytes) : 0;
    size_t nlines = excimer_hprof_stop_lines(&lines, runid, entry, cap, &left_out,
                                             write ? &array : NULL);
    if (nlines && write)
        write_run_file(&array, runid);
    zval_ptr_dtor(&array);
    if (nlines && send) {
        sender_submit(&t, lines.data, lines.len, nlines, EXCIMER_G(arclamp_timeout),
                      EXCIMER_G(arclamp_send_delay)); /* (the sender owns the text now) */
        EXCIMER_G(hprof_runs_sent)++;
    } else {
        strbuf_free(&lines);
    }
}

void excimer_hprof_collect_request_end(void)
{
    if (!EXCIMER_G(hprof_auto))
        return;
    EXCIMER_G(hprof_auto) = false;
    zend_string *entry = EXCIMER_G(hprof_entry);
    EXCIMER_G(hprof_entry) = NULL;
    collect_run(entry ? ZSTR_VAL(entry) : "unknown");
    if (entry)
        zend_string_release(entry);
}
