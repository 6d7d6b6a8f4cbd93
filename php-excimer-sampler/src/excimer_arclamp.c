/* excimer_arclamp.c: the native Arc Lamp transport as PHP functions.
 *
 *   excimer_arclamp_send(string $target, string $collapsed,
 *                        ?string $entryPoint = null): int
 *     sends each line of ExcimerLog::formatCollapsed() output to $target
 *     (see transport.h), with the entry point prepended as its first frame
 *     when the line does not already start with it, exactly as ArcLamp.php
 *     does; returns the number of lines delivered. Never throws for a
 *     delivery failure: failures are counted.
 *   excimer_arclamp_stats(): array
 *     ['sent' => int, 'failed' => int, 'unheard' => int, 'errors' =>
 *      ['connect' => int, 'timeout' => int, 'send' => int, 'reply' => int],
 *      'last_error' => string]
 *     counted since the process started (a php-fpm worker: all its requests);
 *     'unheard': of the lines sent, those PUBLISHed while no subscriber was
 *     listening (Redis dropped them).
 *
 * Zero-code collection: with INI excimer.arclamp_target set, every request
 * gets an ExcimerProfiler at RINIT (period, event type and depth from the
 * excimer.arclamp_* settings), and at RSHUTDOWN — after the script, its
 * shutdown functions and destructors, fatal errors and exit() included — its
 * samples are sent to the target with the request's entry point. A request
 * that took no sample sends nothing. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "SAPI.h"
#include "zend_exceptions.h"
#include "zend_interfaces.h"
#include "php_excimer.h"
#include "transport.h"

/* Delivery counters of this process. Global because they describe the
 * process (a php-fpm worker serves many requests), and PHP reads them with
 * excimer_arclamp_stats(); NTS PHP runs requests one at a time. */
static transport_stats arclamp_stats;

/* True when `line` starts with the frame `entry` ("entry;..." or "entry N"). */
static int starts_with_frame(const char *line, size_t len, const char *entry, size_t elen)
{
    return len > elen && memcmp(line, entry, elen) == 0 && (line[elen] == ';' || line[elen] == ' ');
}

long excimer_arclamp_send_collapsed(const char *target_uri, const char *collapsed, size_t len,
                                    const char *entry, size_t elen, double timeout)
{
    transport_target target;
    char err[300];
    if (transport_parse(target_uri, &target, err, sizeof err) < 0) {
        php_error_docref(NULL, E_WARNING, "%s", err);
        return 0;
    }
    /* Split into lines; prefixed lines are built in one buffer. */
    size_t n = 0, cap = 64;
    const char **lines = emalloc(cap * sizeof *lines);
    size_t *lens = emalloc(cap * sizeof *lens);
    char **owned = emalloc(cap * sizeof *owned);
    const char *p = collapsed, *end = collapsed + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (l > 0) {
            if (n == cap) {
                cap *= 2;
                lines = erealloc(lines, cap * sizeof *lines);
                lens = erealloc(lens, cap * sizeof *lens);
                owned = erealloc(owned, cap * sizeof *owned);
            }
            owned[n] = NULL;
            if (elen && !starts_with_frame(p, l, entry, elen)) {
                owned[n] = emalloc(elen + 1 + l);
                memcpy(owned[n], entry, elen);
                owned[n][elen] = ';';
                memcpy(owned[n] + elen + 1, p, l);
                lines[n] = owned[n];
                lens[n] = elen + 1 + l;
            } else {
                lines[n] = p;
                lens[n] = l;
            }
            n++;
        }
        p = nl ? nl + 1 : end;
    }
    long sent = transport_send(&target, lines, lens, n, timeout, &arclamp_stats);
    for (size_t i = 0; i < n; i++) {
        if (owned[i])
            efree(owned[i]);
    }
    efree(owned);
    efree(lens);
    efree(lines);
    return sent;
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
    RETURN_LONG(excimer_arclamp_send_collapsed(ZSTR_VAL(target), ZSTR_VAL(collapsed),
                                               ZSTR_LEN(collapsed), entry ? ZSTR_VAL(entry) : "",
                                               entry ? ZSTR_LEN(entry) : 0,
                                               EXCIMER_G(arclamp_timeout)));
}

PHP_FUNCTION(excimer_arclamp_stats)
{
    ZEND_PARSE_PARAMETERS_NONE();
    zval errors;
    array_init(return_value);
    add_assoc_long(return_value, "sent", arclamp_stats.lines_sent);
    add_assoc_long(return_value, "failed", arclamp_stats.lines_failed);
    add_assoc_long(return_value, "unheard", arclamp_stats.lines_unheard);
    array_init(&errors);
    for (int e = 0; e < TRANSPORT_NERRORS; e++)
        add_assoc_long(&errors, transport_error_name(e), arclamp_stats.errors[e]);
    add_assoc_zval(return_value, "errors", &errors);
    add_assoc_string(return_value, "last_error", arclamp_stats.last_error);
}

/* Calls $obj->name(...$args), discarding the result unless `ret`. Any
 * exception is cleared: collection must never change the request. */
static void call_method(zend_object *obj, const char *name, zval *ret, uint32_t argc, zval *arg)
{
    zval discard;
    zend_call_method(obj, obj->ce, NULL, name, strlen(name), ret ? ret : &discard, argc, arg,
                     NULL);
    if (!ret)
        zval_ptr_dtor(&discard);
    if (EG(exception))
        zend_clear_exception();
}

static zend_string *request_entry_point(void)
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
    zend_string *name = zend_string_init("ExcimerProfiler", sizeof "ExcimerProfiler" - 1, 0);
    zend_class_entry *ce = zend_lookup_class(name);
    zend_string_release(name);
    zval prof, arg;
    if (!ce || object_init_ex(&prof, ce) != SUCCESS)
        return;
    zend_object *obj = Z_OBJ(prof);
    if (ce->constructor)
        zend_call_known_instance_method_with_0_params(ce->constructor, obj, NULL);
    ZVAL_DOUBLE(&arg, EXCIMER_G(arclamp_period));
    call_method(obj, "setperiod", NULL, 1, &arg);
    ZVAL_LONG(&arg, EXCIMER_G(arclamp_event_type));
    call_method(obj, "seteventtype", NULL, 1, &arg);
    ZVAL_LONG(&arg, EXCIMER_G(arclamp_max_depth));
    call_method(obj, "setmaxdepth", NULL, 1, &arg);
    call_method(obj, "start", NULL, 0, NULL);
    EXCIMER_G(auto_profiler) = obj;
    EXCIMER_G(auto_entry) = request_entry_point();
}

void excimer_arclamp_request_end(void)
{
    zend_object *obj = EXCIMER_G(auto_profiler);
    if (!obj)
        return;
    EXCIMER_G(auto_profiler) = NULL;
    zval log, collapsed;
    ZVAL_UNDEF(&log);
    ZVAL_UNDEF(&collapsed);
    call_method(obj, "stop", NULL, 0, NULL);
    call_method(obj, "getlog", &log, 0, NULL);
    if (Z_TYPE(log) == IS_OBJECT)
        call_method(Z_OBJ(log), "formatcollapsed", &collapsed, 0, NULL);
    if (Z_TYPE(collapsed) == IS_STRING && Z_STRLEN(collapsed) > 0) {
        zend_string *entry = EXCIMER_G(auto_entry);
        excimer_arclamp_send_collapsed(EXCIMER_G(arclamp_target), Z_STRVAL(collapsed),
                                       Z_STRLEN(collapsed), ZSTR_VAL(entry), ZSTR_LEN(entry),
                                       EXCIMER_G(arclamp_timeout));
    }
    zval_ptr_dtor(&collapsed);
    zval_ptr_dtor(&log);
    OBJ_RELEASE(obj);
    zend_string_release(EXCIMER_G(auto_entry));
    EXCIMER_G(auto_entry) = NULL;
}
