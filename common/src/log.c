/* log: structured event logging to journald or stderr. See log.h. */
#include "log.h"
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

/* Process-wide logging settings. Global because logging is a property of the
 * process (one stderr, one journal connection) and every module logs; they
 * are written only by log_setup()/log_set_max_priority() from the main
 * thread. */
static struct {
    char ident[64];
    int use_journal;
    int max_priority;
} log_state = {"arclamp", 0, LOG_INFO};

static const char *const priority_names[] = {
    "emerg", "alert", "crit", "error", "warning", "notice", "info", "debug",
};

/* systemd's documented test: stderr is the journal stream it set up. */
static int stderr_is_journal(void)
{
    const char *env = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    if (!env || sscanf(env, "%llu:%llu", &dev, &ino) != 2)
        return 0;
    if (fstat(STDERR_FILENO, &st) < 0)
        return 0;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_setup(const char *ident, enum log_target target)
{
    snprintf(log_state.ident, sizeof log_state.ident, "%s", ident);
    if (target == LOG_TARGET_AUTO)
        log_state.use_journal = stderr_is_journal();
    else
        log_state.use_journal = target == LOG_TARGET_JOURNAL;
}

int log_target_from_name(const char *name)
{
    if (strcmp(name, "auto") == 0)
        return LOG_TARGET_AUTO;
    if (strcmp(name, "journal") == 0)
        return LOG_TARGET_JOURNAL;
    if (strcmp(name, "stderr") == 0)
        return LOG_TARGET_STDERR;
    return -1;
}

void log_set_max_priority(int priority)
{
    log_state.max_priority = priority;
}

void log_quote(char *out, const char *in, size_t len, size_t max)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = len < max ? len : max;
    char *o = out;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c < 0x20 || c >= 0x7f || c == '\\') {
            *o++ = '\\';
            *o++ = 'x';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        } else {
            *o++ = (char)c;
        }
    }
    if (len > max) {
        memcpy(o, "...", 3);
        o += 3;
    }
    *o = '\0';
}

static void send_to_journal(int priority, const char *event, const struct log_field *fields,
                            size_t nfields, const char *message)
{
    strbuf lines[8 + 16];
    struct iovec iov[8 + 16];
    size_t n = 0;
    size_t max = sizeof iov / sizeof iov[0];

    memset(lines, 0, sizeof lines);
    strbuf_appendf(&lines[n++], "MESSAGE=%s", message);
    strbuf_appendf(&lines[n++], "PRIORITY=%d", priority);
    strbuf_appendf(&lines[n++], "SYSLOG_IDENTIFIER=%s", log_state.ident);
    strbuf_appendf(&lines[n++], "ARCLAMP_EVENT=%s", event);
    for (size_t i = 0; i < nfields && n < max; i++) {
        if (fields[i].value)
            strbuf_appendf(&lines[n++], "%s=%s", fields[i].key, fields[i].value);
    }
    for (size_t i = 0; i < n; i++) {
        iov[i].iov_base = lines[i].data;
        iov[i].iov_len = lines[i].len;
    }
    sd_journal_sendv(iov, (int)n);
    for (size_t i = 0; i < n; i++)
        strbuf_free(&lines[i]);
}

/* Appends `s` with control bytes as \xNN: one entry stays one line, so a
 * newline in a file name or a message cannot forge another entry. */
static void append_one_line(strbuf *line, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            strbuf_appendf(line, "\\x%02x", c);
        else
            strbuf_appendc(line, (char)c);
    }
}

static void send_to_stderr(int priority, const char *event, const struct log_field *fields,
                           size_t nfields, const char *message)
{
    strbuf line = STRBUF_INIT;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    strbuf_appendf(&line, "%s %s[%ld] %s %s: ", stamp, log_state.ident, (long)getpid(),
                   priority_names[priority & 7], event);
    append_one_line(&line, message);
    const char *sep = " (";
    for (size_t i = 0; i < nfields; i++) {
        if (!fields[i].value)
            continue;
        strbuf_appendf(&line, "%s%s=", sep, fields[i].key);
        append_one_line(&line, fields[i].value);
        sep = " ";
    }
    if (sep[0] == ' ' && sep[1] == '\0')
        strbuf_appendc(&line, ')');
    strbuf_appendc(&line, '\n');
    /* One write per entry so lines from several processes never interleave. */
    ssize_t ignored = write(STDERR_FILENO, line.data, line.len);
    (void)ignored;
    strbuf_free(&line);
}

void log_event(int priority, const char *event, const struct log_field *fields,
               size_t nfields, const char *fmt, ...)
{
    if (priority > log_state.max_priority)
        return;
    strbuf message = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vappendf(&message, fmt, ap);
    va_end(ap);
    if (log_state.use_journal)
        send_to_journal(priority, event, fields, nfields, strbuf_cstr(&message));
    else
        send_to_stderr(priority, event, fields, nfields, strbuf_cstr(&message));
    strbuf_free(&message);
}

void log_untrusted(int priority, const char *event, const struct log_field *fields,
                   size_t nfields, const char *fmt, ...)
{
    char msg[1024], quoted[4 * sizeof msg + 4];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
    log_quote(quoted, msg, len, sizeof msg);
    /* Field values too: on stderr they are printed after the message. */
    enum { MAX_FIELDS = 4, FIELD_MAX = 256 };
    struct log_field qf[MAX_FIELDS];
    char values[MAX_FIELDS][4 * FIELD_MAX + 4];
    size_t nq = nfields < MAX_FIELDS ? nfields : MAX_FIELDS;
    for (size_t i = 0; i < nq; i++) {
        qf[i].key = fields[i].key;
        qf[i].value = fields[i].value;
        if (fields[i].value) {
            log_quote(values[i], fields[i].value, strlen(fields[i].value), FIELD_MAX);
            qf[i].value = values[i];
        }
    }
    log_event(priority, event, nq ? qf : NULL, nq, "%s", quoted);
}
