/* log: structured event logging to journald or stderr.
 *
 * Every entry has a priority (syslog levels), an event name that becomes the
 * journal field ARCLAMP_EVENT=, optional extra KEY=value fields, and a
 * human-readable message. Under systemd the entry goes to journald through
 * sd_journal_sendv with all fields intact; elsewhere one line goes to stderr:
 *   2026-11-22T05:50:01Z arclamp-log[42] warning redis_disconnected: lost (ARCLAMP_CHANNEL=excimer)
 */
#ifndef ARCLAMP_LOG_H
#define ARCLAMP_LOG_H

#include <stddef.h>
#include <syslog.h>

enum log_target {
    LOG_TARGET_AUTO,    /* journal when stderr is connected to it (JOURNAL_STREAM) */
    LOG_TARGET_JOURNAL,
    LOG_TARGET_STDERR,
};

struct log_field {
    const char *key;    /* journal field name, upper case, e.g. "ARCLAMP_CHANNEL" */
    const char *value;  /* its value; NULL fields are skipped */
};

/* Builds the (fields, count) argument pair from brace-enclosed initializers:
 *   log_event(LOG_WARNING, "redis_disconnected",
 *             LOG_FIELDS({"ARCLAMP_CHANNEL", ch}), "lost: %s", why); */
#define LOG_FIELDS(...)                                                    \
    ((const struct log_field[]){__VA_ARGS__}),                             \
        (sizeof((const struct log_field[]){__VA_ARGS__}) / sizeof(struct log_field))
#define LOG_NO_FIELDS NULL, 0

/* Chooses the program name and target; safe to call again (on reload). */
void log_setup(const char *ident, enum log_target target);
/* Parses "auto" / "journal" / "stderr"; returns -1 for anything else. */
int log_target_from_name(const char *name);
/* Entries below this priority are dropped (default LOG_INFO). */
void log_set_max_priority(int priority);

void log_event(int priority, const char *event, const struct log_field *fields,
               size_t nfields, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* log_event for what quotes untrusted text (file names, senders' names): the
 * formatted message's control and non-ASCII bytes shown as \xNN, so a
 * newline in a name cannot forge a log line; field values likewise (at most
 * 4 fields, 256 bytes each). Messages are cut at 1 KB. The timer jobs
 * (arclamp-svg, arclamp-report) report through it. */
void log_untrusted(int priority, const char *event, const struct log_field *fields,
                   size_t nfields, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Copies at most `max` bytes of untrusted text into `out` (size >= 4*max+4)
 * with control and non-ASCII bytes as \xNN, for quoting bad input in logs. */
void log_quote(char *out, const char *in, size_t len, size_t max);

#endif
