/* tierline: the tiers/1 line format of request-tier aggregates, its
 * parser and its writer (see tierline.h). Compiled into the extension too:
 * it uses only tierhist (which checks HIST), linefields and strbuf. */
#include "tierline.h"
#include "tierhist.h"
#include "linefields.h"

#include <inttypes.h>
#include <string.h>

static const char *const error_names[TIERLINE_NERRORS] = {
    "ok", "bad_record", "bad_number", "bad_text", "bad_hist",
};

const char *tierline_error_name(enum tierline_error err)
{
    return (unsigned)err < TIERLINE_NERRORS ? error_names[err] : "unknown";
}

int tierline_is_tier(const char *line, size_t len)
{
    return len >= TIERLINE_PREFIX_LEN && memcmp(line, TIERLINE_PREFIX, TIERLINE_PREFIX_LEN) == 0;
}

/* The next field as a number from 0 to `max`: BAD_RECORD when missing,
 * BAD_NUMBER when not such a number. */
static enum tierline_error next_number(struct linefields *f, int64_t max, int64_t *out)
{
    const char *s;
    size_t n;
    if (!linefields_next(f, &s, &n))
        return TIERLINE_BAD_RECORD;
    return linefields_int(s, n, 0, out) < 0 || *out > max ? TIERLINE_BAD_NUMBER : TIERLINE_OK;
}

/* A count: at most TIERLINE_COUNT_MAX, the one range of both programs. */
static enum tierline_error next_count(struct linefields *f, int64_t *out)
{
    return next_number(f, TIERLINE_COUNT_MAX, out);
}

/* Bytes an IDENTITY carries as %XX: the field separator, the escape itself
 * and what a terminal or a log line should never receive raw. */
static int must_escape(unsigned char c)
{
    return c < 0x20 || c == ' ' || c == '%' || c == 0x7f;
}

/* A hex digit of a canonical escape: upper case only (one spelling per
 * identity). */
static int hexval(char c)
{
    return c >= 'a' && c <= 'f' ? -1 : linefields_hexval(c);
}

/* IDENTITY: canonical escapes only (%XX for exactly the bytes of
 * must_escape, so one identity has one spelling and can be a key as it is
 * written), valid UTF-8, 1-255 bytes decoded. */
static int identity_ok(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t decoded = 0;
    for (size_t i = 0; i < len; decoded++) {
        if (u[i] == '%') {
            if (len - i < 3 || hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0 ||
                !must_escape((unsigned char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]))))
                return 0;
            i += 3;
        } else if (u[i] < 0x80) {
            if (must_escape(u[i]))
                return 0;
            i++;
        } else {
            size_t n = linefields_utf8_len(u + i, len - i);
            if (n == 0)
                return 0;
            i += n;
            decoded += n - 1;
        }
    }
    return decoded >= 1 && decoded <= TIERLINE_IDENTITY_MAX;
}

int tierline_identity_valid(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    if (len < 1 || len > TIERLINE_IDENTITY_MAX)
        return 0;
    for (size_t i = 0; i < len;) {
        size_t n = u[i] < 0x80 ? 1 : linefields_utf8_len(u + i, len - i);
        if (n == 0)
            return 0;
        i += n;
    }
    return 1;
}

static int host_ok(const char *s, size_t len)
{
    if (len == 0 || len > TIERLINE_HOST_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            return 0;
    }
    return 1;
}

int tierline_tier_ok(const char *s, size_t len)
{
    if (len == 0 || len > TIERLINE_TIER_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

/* START END HOST PID, common to both records. */
static enum tierline_error parse_head(struct linefields *f, struct tierline *out)
{
    enum tierline_error err;
    if ((err = next_count(f, &out->start)) != TIERLINE_OK ||
        (err = next_count(f, &out->end)) != TIERLINE_OK)
        return err;
    if (!linefields_next(f, &out->host, &out->host_len))
        return TIERLINE_BAD_RECORD;
    if (!host_ok(out->host, out->host_len))
        return TIERLINE_BAD_TEXT;
    if ((err = next_count(f, &out->pid)) != TIERLINE_OK)
        return err;
    return out->start > out->end ? TIERLINE_BAD_NUMBER : TIERLINE_OK;
}

static enum tierline_error parse_agg(struct linefields *f, struct tierline *out)
{
    enum tierline_error err;
    if (!linefields_next(f, &out->identity, &out->identity_len))
        return TIERLINE_BAD_RECORD;
    if (!identity_ok(out->identity, out->identity_len))
        return TIERLINE_BAD_TEXT;
    if (!linefields_next(f, &out->tier, &out->tier_len))
        return TIERLINE_BAD_RECORD;
    if (!tierline_tier_ok(out->tier, out->tier_len))
        return TIERLINE_BAD_TEXT;
    if ((err = next_count(f, &out->calls)) != TIERLINE_OK ||
        (err = next_number(f, INT64_MAX, &out->total_ns)) != TIERLINE_OK)
        return err;
    if (out->calls == 0)
        return TIERLINE_BAD_NUMBER;
    if (!linefields_next(f, &out->hist, &out->hist_len) || f->p != f->end)
        return TIERLINE_BAD_RECORD;
    uint64_t total;
    if (tierhist_check(out->hist, out->hist_len, &total) < 0 || total != (uint64_t)out->calls)
        return TIERLINE_BAD_HIST;
    return TIERLINE_OK;
}

static enum tierline_error parse_status(struct linefields *f, struct tierline *out)
{
    int64_t *v[] = {&out->requests, &out->traced, &out->trips,
                    &out->resumes, &out->paused, &out->skipped};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        enum tierline_error err = next_count(f, v[i]);
        if (err != TIERLINE_OK)
            return err;
    }
    return f->p != f->end ? TIERLINE_BAD_RECORD : TIERLINE_OK;
}

enum tierline_error tierline_parse(const char *line, size_t len, struct tierline *out)
{
    memset(out, 0, sizeof *out);
    /* a trailing space would pass as "no extra field" below */
    if (!tierline_is_tier(line, len) || line[len - 1] == ' ')
        return TIERLINE_BAD_RECORD;
    struct linefields f = {line + TIERLINE_PREFIX_LEN, line + len};
    const char *kind;
    size_t n;
    if (!linefields_next(&f, &kind, &n))
        return TIERLINE_BAD_RECORD;
    enum tierline_error err;
    if (n == 3 && memcmp(kind, "agg", 3) == 0) {
        out->kind = TIERLINE_AGG;
        if ((err = parse_head(&f, out)) != TIERLINE_OK)
            return err;
        return parse_agg(&f, out);
    }
    if (n == 6 && memcmp(kind, "status", 6) == 0) {
        out->kind = TIERLINE_STATUS;
        if ((err = parse_head(&f, out)) != TIERLINE_OK)
            return err;
        return parse_status(&f, out);
    }
    return TIERLINE_BAD_RECORD;
}

size_t tierline_escape(const char *s, size_t len, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (must_escape(c)) {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        } else {
            out[o++] = (char)c;
        }
    }
    return o;
}

size_t tierline_unescape(const char *s, size_t len, char *out)
{
    return linefields_unescape(s, len, out);
}

/* "tiers/1 KIND START END HOST PID": the head both records share. */
static void write_head(strbuf *out, const char *kind, const struct tierline *tl)
{
    strbuf_appendf(out, TIERLINE_PREFIX "%s %" PRId64 " %" PRId64 " %.*s %" PRId64, kind,
                   tl->start, tl->end, (int)tl->host_len, tl->host, tl->pid);
}

void tierline_write(strbuf *out, const struct tierline *tl, const struct tierhist *hist)
{
    if (tl->kind == TIERLINE_STATUS) {
        write_head(out, "status", tl);
        strbuf_appendf(out, " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
                            " %" PRId64 "\n",
                       tl->requests, tl->traced, tl->trips, tl->resumes, tl->paused,
                       tl->skipped);
        return;
    }
    write_head(out, "agg", tl);
    strbuf_appendf(out, " %.*s %.*s %" PRId64 " %" PRId64 " ", (int)tl->identity_len,
                   tl->identity, (int)tl->tier_len, tl->tier, tl->calls, tl->total_ns);
    if (hist)
        tierhist_format(hist, out);
    else
        strbuf_append(out, tl->hist, tl->hist_len);
    strbuf_appendc(out, '\n');
}
