/* runline: the xhprof/1 line format of hierarchical runs (see runline.h). */
#include "runline.h"
#include "linefields.h"
#include "stackline.h"

#include <limits.h>
#include <string.h>

static const char *const error_names[RUNLINE_NERRORS] = {
    "ok", "bad_runid", "bad_record", "bad_number", "bad_text",
};

const char *runline_error_name(enum runline_error err)
{
    return (unsigned)err < RUNLINE_NERRORS ? error_names[err] : "unknown";
}

int runline_is_run(const char *line, size_t len)
{
    return len >= RUNLINE_PREFIX_LEN && memcmp(line, RUNLINE_PREFIX, RUNLINE_PREFIX_LEN) == 0;
}

static int runid_ok(const char *s, size_t len)
{
    if (len == 0 || len > RUNLINE_RUNID_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

/* KEY or ENTRY: not empty, printable valid UTF-8 (the escapes carry the
 * rest), every '%' followed by two hex digits. */
static int text_ok(const char *s, size_t len)
{
    if (len == 0 || stackline_check_bytes(s, len) != STACKLINE_OK)
        return 0;
    for (const char *p = memchr(s, '%', len); p; p = memchr(p, '%', (size_t)(s + len - p))) {
        if (s + len - p < 3 || linefields_hexval(p[1]) < 0 || linefields_hexval(p[2]) < 0)
            return 0;
        p += 3;
        if (p >= s + len)
            break;
    }
    return 1;
}

static const char *const flag_names[RL_NMETRICS] = {"ct", "wt", "cpu", "mu", "pmu"};

/* FLAGS: comma-separated metric names, wt first (the extension always
 * measures wall time). */
static int parse_flags(const char *s, size_t len, unsigned *metrics)
{
    *metrics = 1u << RL_CT;
    while (len > 0) {
        const char *comma = memchr(s, ',', len);
        size_t n = comma ? (size_t)(comma - s) : len;
        int known = 0;
        for (int m = RL_WT; m < RL_NMETRICS; m++) {
            if (n == strlen(flag_names[m]) && memcmp(s, flag_names[m], n) == 0) {
                *metrics |= 1u << m;
                known = 1;
            }
        }
        if (!known)
            return -1;
        if (!comma)
            break;
        s += n + 1;
        len -= n + 1;
        if (len == 0)
            return -1;
    }
    return (*metrics & (1u << RL_WT)) ? 0 : -1;
}

static enum runline_error parse_begin(struct linefields *f, struct runline *out)
{
    const char *s;
    size_t n;
    if (!linefields_next(f, &s, &n))
        return RUNLINE_BAD_RECORD;
    if (linefields_int(s, n, 0, &out->time) < 0)
        return RUNLINE_BAD_NUMBER;
    if (!linefields_next(f, &out->host, &out->host_len))
        return RUNLINE_BAD_RECORD;
    if (out->host_len > RUNLINE_HOST_MAX ||
        stackline_check_bytes(out->host, out->host_len) != STACKLINE_OK)
        return RUNLINE_BAD_TEXT;
    if (!linefields_next(f, &s, &n))
        return RUNLINE_BAD_RECORD;
    if (parse_flags(s, n, &out->metrics) < 0)
        return RUNLINE_BAD_TEXT;
    out->text = f->p;
    out->text_len = (size_t)(f->end - f->p);
    if (out->text_len == 0)
        return RUNLINE_BAD_RECORD;
    return text_ok(out->text, out->text_len) ? RUNLINE_OK : RUNLINE_BAD_TEXT;
}

static enum runline_error parse_arc(struct linefields *f, struct runline *out)
{
    out->present = 0;
    for (int m = 0; m < RL_NMETRICS; m++) {
        const char *s;
        size_t n;
        if (!linefields_next(f, &s, &n))
            return RUNLINE_BAD_RECORD;
        out->v[m] = 0;
        if (n == 1 && s[0] == '-' && m > RL_WT)
            continue;
        /* memory deltas go negative when a function frees more than it takes */
        if (linefields_int(s, n, m == RL_MU || m == RL_PMU, &out->v[m]) < 0)
            return RUNLINE_BAD_NUMBER;
        out->present |= 1u << m;
    }
    out->text = f->p;
    out->text_len = (size_t)(f->end - f->p);
    if (out->text_len == 0)
        return RUNLINE_BAD_RECORD;
    return text_ok(out->text, out->text_len) ? RUNLINE_OK : RUNLINE_BAD_TEXT;
}

static enum runline_error parse_end(struct linefields *f, struct runline *out)
{
    const char *s;
    size_t n;
    if (!linefields_next(f, &s, &n))
        return RUNLINE_BAD_RECORD;
    if (linefields_int(s, n, 0, &out->sent) < 0)
        return RUNLINE_BAD_NUMBER;
    if (!linefields_next(f, &s, &n) || f->p != f->end)
        return RUNLINE_BAD_RECORD;
    return linefields_int(s, n, 0, &out->left_out) < 0 ? RUNLINE_BAD_NUMBER : RUNLINE_OK;
}

enum runline_error runline_parse(const char *line, size_t len, struct runline *out)
{
    memset(out, 0, sizeof *out);
    if (!runline_is_run(line, len))
        return RUNLINE_BAD_RECORD;
    struct linefields f = {line + RUNLINE_PREFIX_LEN, line + len};
    if (!linefields_next(&f, &out->runid, &out->runid_len) || !runid_ok(out->runid, out->runid_len))
        return RUNLINE_BAD_RUNID;
    const char *kind;
    size_t n;
    if (!linefields_next(&f, &kind, &n))
        return RUNLINE_BAD_RECORD;
    if (n == 5 && memcmp(kind, "begin", 5) == 0) {
        out->kind = RUNLINE_BEGIN;
        return parse_begin(&f, out);
    }
    if (n == 3 && memcmp(kind, "arc", 3) == 0) {
        out->kind = RUNLINE_ARC;
        return parse_arc(&f, out);
    }
    if (n == 3 && memcmp(kind, "end", 3) == 0) {
        out->kind = RUNLINE_END;
        return parse_end(&f, out);
    }
    return RUNLINE_BAD_RECORD;
}

size_t runline_unescape(const char *text, size_t len, char *out)
{
    return linefields_unescape(text, len, out);
}

size_t runline_entry_tag(const char *entry, size_t len, char *tag)
{
    const char *base = entry;
    for (const char *p = entry; p < entry + len; p++) {
        if (*p == '/')
            base = p + 1;
    }
    size_t n = (size_t)(entry + len - base);
    if (n <= 4 || memcmp(base + n - 4, ".php", 4) != 0)
        return 0;
    n -= 4;
    if (!stackline_tag_name_ok(base, n))
        return 0;
    memcpy(tag, base, n);
    tag[n] = '\0';
    return n;
}
