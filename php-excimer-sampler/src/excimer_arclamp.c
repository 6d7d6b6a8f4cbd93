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
 *     ['sent' => int, 'failed' => int, 'errors' => ['connect' => int,
 *      'timeout' => int, 'send' => int, 'reply' => int], 'last_error' => string]
 *     counted since the process started (a php-fpm worker: all its requests). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
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
    array_init(&errors);
    for (int e = 0; e < TRANSPORT_NERRORS; e++)
        add_assoc_long(&errors, transport_error_name(e), arclamp_stats.errors[e]);
    add_assoc_zval(return_value, "errors", &errors);
    add_assoc_string(return_value, "last_error", arclamp_stats.last_error);
}
