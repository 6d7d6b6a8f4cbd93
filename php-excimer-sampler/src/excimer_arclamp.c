/* excimer_arclamp.c: the native Arc Lamp transport as PHP functions, and
 * zero-code collection.
 *
 *   excimer_arclamp_send(string $target, string $collapsed,
 *                        ?string $entryPoint = null): int
 *     sends the lines of ExcimerLog::formatCollapsed() output to $target
 *     (see transport.h), with the entry point prepended as the first frame
 *     of a line that does not already start with it, exactly as
 *     ArcLamp.php does; returns the number of lines delivered, waiting at
 *     most excimer.arclamp_timeout. Never throws for a delivery failure:
 *     failures are counted.
 *   excimer_arclamp_stats(): array
 *     ['sent' => int, 'failed' => int, 'unheard' => int, 'queued' => int,
 *      'errors' => ['connect' => int, 'timeout' => int, 'send' => int,
 *                   'reply' => int, 'backlog' => int],
 *      'last_error' => string]
 *     counted since the process started (a php-fpm worker: all its requests);
 *     'unheard': of the lines sent, those PUBLISHed while no subscriber was
 *     listening (Redis dropped them); 'queued': lines handed to the sender
 *     thread and not yet delivered or failed.
 *   excimer_arclamp_skip_request(): bool
 *     leaves the current request out of zero-code collection (its samples
 *     are dropped); true if it was being collected.
 *
 * Zero-code collection: with INI excimer.arclamp_target set, every request
 * gets a profiler at RINIT (period, event type and depth from the
 * excimer.arclamp_* settings), and at RSHUTDOWN — after the script, its
 * shutdown functions and destructors, fatal errors and exit() included —
 * its samples are handed to the sender thread (sender.h) with the request's
 * entry point: the request does not wait for the delivery. A request that
 * took no sample sends nothing. The profiler is made, started and read
 * from C, without calling PHP methods. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "SAPI.h"
#include "php_excimer.h"
#include "sender.h"
#include "stack_store.h"
#include "transport.h"

#include <unistd.h>

/* True when `line` starts with the frame `entry` ("entry;..." or "entry N"). */
static int starts_with_frame(const char *line, size_t len, const char *entry, size_t elen)
{
    return len > elen && memcmp(line, entry, elen) == 0 && (line[elen] == ';' || line[elen] == ' ');
}

/* The lines of `collapsed` (empty ones skipped), each prefixed with
 * "entry;" unless it starts with that frame, joined by '\n' into one
 * malloc()ed buffer for the sender. NULL when there is no line. */
static char *build_lines(const char *collapsed, size_t len, const char *entry, size_t elen,
                         size_t *out_len, size_t *nlines)
{
    size_t lines = 0, prefixed = 0;
    for (const char *p = collapsed, *end = collapsed + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (l) {
            lines++;
            prefixed += elen && !starts_with_frame(p, l, entry, elen);
        }
        p = nl ? nl + 1 : end;
    }
    *nlines = lines;
    if (!lines)
        return NULL;
    char *text = malloc(len + prefixed * (elen + 1) + 1);
    if (!text)
        return NULL;
    char *o = text;
    for (const char *p = collapsed, *end = collapsed + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (l) {
            if (o != text)
                *o++ = '\n';
            if (elen && !starts_with_frame(p, l, entry, elen)) {
                memcpy(o, entry, elen);
                o[elen] = ';';
                o += elen + 1;
            }
            memcpy(o, p, l);
            o += l;
        }
        p = nl ? nl + 1 : end;
    }
    *out_len = (size_t)(o - text);
    return text;
}

/* Writes a change of the delivery state (failing, delivering again) to
 * PHP's error log, once per change: the sender thread cannot. */
static void log_sender_news(void)
{
    char news[400];
    int failure;
    if (sender_take_news(news, sizeof news, &failure))
        php_log_err_with_severity(news, failure ? LOG_WARNING : LOG_NOTICE);
}

/* Hands lines to the sender: waits for them (and returns the lines
 * delivered) when `wait`, else returns at once (0) and lets them wait up to
 * excimer.arclamp_send_delay for other requests' lines. */
static long send_collapsed(const char *target_uri, const char *collapsed, size_t len,
                           const char *entry, size_t elen, double timeout, int wait)
{
    transport_target target;
    char err[400];
    if (transport_parse(target_uri, &target, err, sizeof err) < 0) {
        php_error_docref(NULL, E_WARNING, "%s", err);
        return 0;
    }
    size_t text_len = 0, nlines;
    char *text = build_lines(collapsed, len, entry, elen, &text_len, &nlines);
    if (!text)
        return 0;
    long delivered = 0;
    if (wait)
        delivered = sender_send_and_wait(&target, text, text_len, nlines, timeout);
    else
        sender_submit(&target, text, text_len, nlines, timeout, EXCIMER_G(arclamp_send_delay));
    log_sender_news();
    return delivered;
}

PHP_FUNCTION(excimer_arclamp_send)
{
    zend_string *target, *collapsed, *entry = NULL;
    ZEND_PARSE_PARAMETERS_START(2, 3)
        Z_PARAM_STR(target)
        Z_PARAM_STR(collapsed)
        Z_PARAM_OPTIONAL
        Z_PARAM_STR_OR_NULL(entry)
    ZEND_PARSE_PARAMETERS_END();
    RETURN_LONG(send_collapsed(ZSTR_VAL(target), ZSTR_VAL(collapsed), ZSTR_LEN(collapsed),
                               entry ? ZSTR_VAL(entry) : "", entry ? ZSTR_LEN(entry) : 0,
                               EXCIMER_G(arclamp_timeout), 1));
}

PHP_FUNCTION(excimer_arclamp_stats)
{
    ZEND_PARSE_PARAMETERS_NONE();
    transport_stats st;
    long queued;
    zval errors;
    log_sender_news();
    sender_stats(&st, &queued);
    array_init(return_value);
    add_assoc_long(return_value, "sent", st.lines_sent);
    add_assoc_long(return_value, "failed", st.lines_failed);
    add_assoc_long(return_value, "unheard", st.lines_unheard);
    add_assoc_long(return_value, "queued", queued);
    add_assoc_long(return_value, "hprof_runs", EXCIMER_G(hprof_runs_sent));
    array_init(&errors);
    for (int e = 0; e < TRANSPORT_NERRORS; e++)
        add_assoc_long(&errors, transport_error_name(e), st.errors[e]);
    add_assoc_zval(return_value, "errors", &errors);
    add_assoc_string(return_value, "last_error", st.last_error);
}

/* Stops and frees the request's zero-code profiler without sending. */
static void drop_auto_profiler(void)
{
    zend_object *obj = EXCIMER_G(auto_profiler);
    EXCIMER_G(auto_profiler) = NULL;
    excimer_profiler_stop_and_log(obj);
    zend_string_release(EXCIMER_G(auto_entry));
    EXCIMER_G(auto_entry) = NULL;
    OBJ_RELEASE(obj);
}

PHP_FUNCTION(excimer_arclamp_skip_request)
{
    ZEND_PARSE_PARAMETERS_NONE();
    bool hprof = excimer_hprof_collect_skip();
    if (!EXCIMER_G(auto_profiler))
        RETURN_BOOL(hprof);
    drop_auto_profiler();
    RETURN_TRUE;
}

zend_string *excimer_request_entry_point(void)
{
    const char *script = SG(request_info).path_translated;
    char real[MAXPATHLEN];
    if (!script || !*script)
        return zend_string_init("unknown", 7, 0);
    if (VCWD_REALPATH(script, real))
        return zend_string_init(real, strlen(real), 0);
    return zend_string_init(script, strlen(script), 0);
}

void excimer_arclamp_request_start(void)
{
    const char *target = EXCIMER_G(arclamp_target);
    EXCIMER_G(auto_profiler) = NULL;
    if (!target || !*target)
        return;
    EXCIMER_G(auto_profiler) = excimer_profiler_create_started(
        EXCIMER_G(arclamp_period), (int)EXCIMER_G(arclamp_event_type),
        EXCIMER_G(arclamp_max_depth));
    /* Now: php-fpm frees the script's path before the request's shutdown. */
    if (EXCIMER_G(auto_profiler))
        EXCIMER_G(auto_entry) = excimer_request_entry_point();
}

void excimer_arclamp_request_end(void)
{
    zend_object *obj = EXCIMER_G(auto_profiler);
    if (!obj)
        return;
    EXCIMER_G(auto_profiler) = NULL;
    const excimer_log_data *log = excimer_profiler_stop_and_log(obj);
    zend_string *entry = EXCIMER_G(auto_entry);
    EXCIMER_G(auto_entry) = NULL;
    if (log->nentries > 0) {
        zend_string *collapsed = stack_store_format_collapsed(log);
        send_collapsed(EXCIMER_G(arclamp_target), ZSTR_VAL(collapsed), ZSTR_LEN(collapsed),
                       ZSTR_VAL(entry), ZSTR_LEN(entry), EXCIMER_G(arclamp_timeout), 0);
        zend_string_release(collapsed);
    } else {
        log_sender_news();
    }
    zend_string_release(entry);
    OBJ_RELEASE(obj);
}

int excimer_target_for(const char *own_uri, const char *own_ini, const char *key,
                       struct transport_target *t)
{
    char err[400];
    if (own_uri && *own_uri) {
        if (transport_parse(own_uri, t, err, sizeof err) == 0)
            return 0;
        if (own_ini)
            php_error_docref(NULL, E_WARNING, "%s: %s", own_ini, err);
        return -1;
    }
    const char *uri = EXCIMER_G(arclamp_target);
    if (!uri || !*uri || transport_parse(uri, t, err, sizeof err) < 0)
        return -1;
    if (t->kind == TRANSPORT_REDIS_PUBLISH || t->kind == TRANSPORT_REDIS_XADD)
        snprintf(t->key, sizeof t->key, "%s", key);
    return 0;
}

void excimer_host_field(char *host, size_t len)
{
    if (gethostname(host, len - 1) < 0)
        snprintf(host, len, "unknown");
    host[len - 1] = '\0';
    for (unsigned char *p = (unsigned char *)host; *p; p++)
        if (*p <= ' ' || *p == 0x7f)
            *p = '_';
}
