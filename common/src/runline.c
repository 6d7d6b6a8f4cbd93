/* runline: the xhprof/1 and xhprof/2 line formats of hierarchical runs —
 * parser, per-run name table and writer (see runline.h). */
#include "runline.h"
#include "fixedhash.h"
#include "linefields.h"
#include "stackline.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *const error_names[RUNLINE_NERRORS] = {
    "ok", "bad_runid", "bad_record", "bad_number", "bad_text", "long_name",
};

const char *runline_error_name(enum runline_error err)
{
    return (unsigned)err < RUNLINE_NERRORS ? error_names[err] : "unknown";
}

/* The version of a line's prefix; 0 for none. */
static int version_of(const char *line, size_t len)
{
    if (len < RUNLINE_PREFIX_LEN)
        return 0;
    if (memcmp(line, RUNLINE_PREFIX, RUNLINE_PREFIX_LEN) == 0)
        return 1;
    if (memcmp(line, RUNLINE_PREFIX_V2, RUNLINE_PREFIX_LEN) == 0)
        return 2;
    return 0;
}

int runline_is_run(const char *line, size_t len)
{
    return version_of(line, len) != 0;
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

/* KEY, NAME or ENTRY: not empty, printable valid UTF-8 (the escapes carry
 * the rest), every '%' followed by two hex digits; at most `max` bytes
 * once decoded (each escape is one byte). */
static enum runline_error check_text(const char *s, size_t len, size_t max)
{
    if (len == 0 || stackline_check_bytes(s, len) != STACKLINE_OK)
        return RUNLINE_BAD_TEXT;
    size_t escapes = 0;
    for (const char *p = memchr(s, '%', len); p; p = memchr(p, '%', (size_t)(s + len - p))) {
        if (s + len - p < 3 || linefields_hexval(p[1]) < 0 || linefields_hexval(p[2]) < 0)
            return RUNLINE_BAD_TEXT;
        escapes++;
        p += 3;
        if (p >= s + len)
            break;
    }
    return len - 2 * escapes > max ? RUNLINE_LONG_NAME : RUNLINE_OK;
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
    return check_text(out->text, out->text_len, RUNLINE_MAX_NAME_BYTES);
}

/* The five metrics of an arc line, either version. */
static enum runline_error parse_metrics(struct linefields *f, struct runline *out)
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
    return RUNLINE_OK;
}

/* The rest of the line as KEY or NAME, at most `max` bytes decoded. */
static enum runline_error parse_text(struct linefields *f, struct runline *out, size_t max)
{
    out->text = f->p;
    out->text_len = (size_t)(f->end - f->p);
    if (out->text_len == 0)
        return RUNLINE_BAD_RECORD;
    return check_text(out->text, out->text_len, max);
}

/* A function id or a recursion level: decimal, at most RUNLINE_ID_MAX. */
static int parse_id(const char *s, size_t n, uint32_t *out)
{
    int64_t v;
    if (linefields_int(s, n, 0, &v) < 0 || v > RUNLINE_ID_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* CALLER or CALLEE of a version 2 arc: ID or ID@LEVEL (LEVEL >= 1). */
static int parse_ref(const char *s, size_t n, uint32_t *id, uint32_t *level)
{
    const char *at = memchr(s, '@', n);
    *level = 0;
    if (!at)
        return parse_id(s, n, id);
    size_t idn = (size_t)(at - s);
    if (parse_id(s, idn, id) < 0 || parse_id(at + 1, n - idn - 1, level) < 0 || *level == 0)
        return -1;
    return 0;
}

static enum runline_error parse_arc(struct linefields *f, struct runline *out)
{
    enum runline_error err = parse_metrics(f, out);
    if (err != RUNLINE_OK)
        return err;
    if (out->version == 1)
        return parse_text(f, out, RUNLINE_MAX_KEY_BYTES);
    const char *s;
    size_t n;
    if (!linefields_next(f, &s, &n))
        return RUNLINE_BAD_RECORD;
    out->caller = RUNLINE_NO_CALLER;
    out->caller_level = 0;
    if (!(n == 1 && s[0] == '-') && parse_ref(s, n, &out->caller, &out->caller_level) < 0)
        return RUNLINE_BAD_NUMBER;
    if (!linefields_next(f, &s, &n) || f->p != f->end)
        return RUNLINE_BAD_RECORD;
    if (parse_ref(s, n, &out->callee, &out->callee_level) < 0)
        return RUNLINE_BAD_NUMBER;
    return RUNLINE_OK;
}

static enum runline_error parse_fn(struct linefields *f, struct runline *out)
{
    const char *s;
    size_t n;
    if (!linefields_next(f, &s, &n))
        return RUNLINE_BAD_RECORD;
    if (parse_id(s, n, &out->id) < 0)
        return RUNLINE_BAD_NUMBER;
    return parse_text(f, out, RUNLINE_MAX_NAME_BYTES);
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
    out->version = version_of(line, len);
    if (!out->version)
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
    if (out->version == 2 && n == 2 && memcmp(kind, "fn", 2) == 0) {
        out->kind = RUNLINE_FN;
        return parse_fn(&f, out);
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

/* A decimal number onto sb. */
static void append_u64(strbuf *sb, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof digits - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    strbuf_append(sb, digits + sizeof digits - n, n);
}

/* ---- the writer --------------------------------------------------------------- */

static const char hexdigits[] = "0123456789ABCDEF";

/* Raw bytes as KEY/NAME/ENTRY text: '%', control bytes, DEL and bytes that
 * are not part of valid UTF-8 as %XX, the rest as they are. */
static void append_escaped(strbuf *sb, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t plain = 0; /* start of the bytes not yet copied */
    for (size_t i = 0; i < len;) {
        unsigned char c = p[i];
        if ((unsigned char)(c - 0x20) < 0x5f && c != '%') {
            i++; /* printable ASCII, the bulk of any name */
            continue;
        }
        size_t n = 1;
        int escape = c < 0x80;
        if (c >= 0x80) {
            n = linefields_utf8_len(p + i, len - i);
            escape = n == 0;
            n += escape;
        }
        if (escape) {
            strbuf_append(sb, s + plain, i - plain);
            char esc[3] = {'%', hexdigits[c >> 4], hexdigits[c & 15]};
            strbuf_append(sb, esc, 3);
            plain = i + 1;
        }
        i += n;
    }
    strbuf_append(sb, s + plain, len - plain);
}

size_t runline_shorten_name(const char *s, size_t len, char *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t keep_max = RUNLINE_MAX_NAME_BYTES - RUNLINE_CUT_SUFFIX_LEN, keep = 0;
    while (keep < keep_max) {
        size_t n = p[keep] < 0x80 ? 1 : linefields_utf8_len(p + keep, len - keep);
        n += n == 0; /* a byte of invalid UTF-8 goes alone (as one %XX) */
        if (keep + n > keep_max)
            break;
        keep += n;
    }
    memcpy(out, s, keep);
    memcpy(out + keep, RUNLINE_CUT_MARK, sizeof RUNLINE_CUT_MARK - 1);
    size_t n = keep + sizeof RUNLINE_CUT_MARK - 1;
    /* unkeyed (fixedhash.h): every process, and any other writer, marks a
     * cut name the same way, so runs of it sum together */
    uint64_t h = fixedhash_fnv1a64(p, len);
    for (int shift = 60; shift >= 0; shift -= 4)
        out[n++] = "0123456789abcdef"[(h >> shift) & 15];
    out[n++] = ']';
    return n;
}

/* A name or ENTRY as the line carries it: shortened past the cap, escaped. */
static void append_name_text(strbuf *sb, const char *s, size_t len)
{
    if (len <= RUNLINE_MAX_NAME_BYTES) {
        append_escaped(sb, s, len);
        return;
    }
    char cut[RUNLINE_MAX_NAME_BYTES];
    append_escaped(sb, cut, runline_shorten_name(s, len, cut));
}

/* HOST as the field carries it: at most RUNLINE_HOST_MAX bytes of
 * printable valid UTF-8 without spaces, '_' for any other byte (so an odd
 * host name costs its runs nothing). */
static void append_host(strbuf *sb, const char *host)
{
    const unsigned char *p = (const unsigned char *)host;
    size_t len = strnlen(host, RUNLINE_HOST_MAX), i = 0;
    while (i < len) {
        size_t n = 1;
        if (p[i] >= 0x80)
            n = linefields_utf8_len(p + i, len - i);
        if (n == 0 || p[i] <= ' ' || p[i] == 0x7f)
            strbuf_appendc(sb, '_');
        else
            strbuf_append(sb, host + i, n);
        i += n ? n : 1;
    }
}

static void append_prefix(strbuf *sb, const char *runid, size_t runid_len, const char *kind)
{
    strbuf_append(sb, RUNLINE_PREFIX_V2, RUNLINE_PREFIX_LEN);
    strbuf_append(sb, runid, runid_len);
    strbuf_appendc(sb, ' ');
    strbuf_appends(sb, kind);
}

static void append_i64(strbuf *sb, int64_t v)
{
    if (v < 0) {
        strbuf_appendc(sb, '-');
        append_u64(sb, (uint64_t)0 - (uint64_t)v);
    } else {
        append_u64(sb, (uint64_t)v);
    }
}

static void write_begin(strbuf *sb, const struct runline_run *run, size_t runid_len)
{
    append_prefix(sb, run->runid, runid_len, "begin ");
    append_i64(sb, run->time < 0 ? 0 : run->time);
    strbuf_appendc(sb, ' ');
    if (run->host && run->host[0])
        append_host(sb, run->host);
    else
        strbuf_appendc(sb, '-');
    strbuf_appends(sb, " wt");
    for (int m = RL_CPU; m < RL_NMETRICS; m++) {
        if (run->metrics & (1u << m)) {
            strbuf_appendc(sb, ',');
            strbuf_appends(sb, flag_names[m]);
        }
    }
    strbuf_appendc(sb, ' ');
    if (run->entry_len)
        append_name_text(sb, run->entry, run->entry_len);
    else
        strbuf_appends(sb, "unknown");
}

/* v in decimal at p; returns the end. Two digits a step: the numbers of
 * a run's lines are most of its writing time. */
static char *put_u64(char *p, uint64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    char digits[20], *d = digits + sizeof digits;
    while (v >= 100) {
        d -= 2;
        memcpy(d, pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) {
        d -= 2;
        memcpy(d, pairs + 2 * v, 2);
    } else {
        *--d = (char)('0' + v);
    }
    size_t n = (size_t)(digits + sizeof digits - d);
    memcpy(p, d, n);
    return p + n;
}

static char *put_ref(char *p, uint32_t id, uint32_t level)
{
    p = put_u64(p, id);
    if (level) {
        *p++ = '@';
        p = put_u64(p, level);
    }
    return p;
}

/* The longest arc line with the newline before it: the prefix, a run id,
 * " arc", five metrics of a sign and 19 digits each after a space, and two
 * ID@LEVEL of 10 digits each after a space. */
#define ARC_LINE_MAX (1 + RUNLINE_PREFIX_LEN + RUNLINE_RUNID_MAX + 4 + 5 * 21 + 2 * 22)

/* "\n" and an arc line, made in one piece: a run has thousands, and one
 * append each costs less than twenty. */
static void write_arc(strbuf *sb, const struct runline_run *run, size_t runid_len,
                      const struct runline_arc *a)
{
    char line[ARC_LINE_MAX], *p = line;
    *p++ = '\n';
    memcpy(p, RUNLINE_PREFIX_V2, RUNLINE_PREFIX_LEN);
    p += RUNLINE_PREFIX_LEN;
    memcpy(p, run->runid, runid_len);
    p += runid_len;
    memcpy(p, " arc", 4);
    p += 4;
    for (int m = 0; m < RL_NMETRICS; m++) {
        *p++ = ' ';
        int64_t v = a->v[m];
        if (m > RL_WT && !(run->metrics & (1u << m))) {
            *p++ = '-';
        } else if (v < 0 && m <= RL_CPU) {
            *p++ = '0'; /* only memory goes negative in the format */
        } else if (v < 0) {
            *p++ = '-';
            p = put_u64(p, (uint64_t)0 - (uint64_t)v);
        } else {
            p = put_u64(p, (uint64_t)v);
        }
    }
    *p++ = ' ';
    if (a->caller == RUNLINE_NO_CALLER)
        *p++ = '-';
    else
        p = put_ref(p, a->caller, a->caller_level);
    *p++ = ' ';
    p = put_ref(p, a->callee, a->callee_level);
    strbuf_append(sb, line, (size_t)(p - line));
}

/* Whether an arc can be written at all: indexes and levels the format can
 * carry, names that are not empty. */
static int arc_writable(const struct runline_run *run, const struct runline_arc *a)
{
    if (a->callee >= run->nnames || a->callee > RUNLINE_ID_MAX ||
        a->callee_level > RUNLINE_ID_MAX || run->names[a->callee].len == 0)
        return 0;
    if (a->caller == RUNLINE_NO_CALLER)
        return 1;
    return a->caller < run->nnames && a->caller <= RUNLINE_ID_MAX &&
           a->caller_level <= RUNLINE_ID_MAX && run->names[a->caller].len > 0;
}

/* Writes the fn line of name `id` unless written; 1 when it wrote one. */
static int write_fn(strbuf *sb, const struct runline_run *run, size_t runid_len, uint32_t id,
                    unsigned char *written)
{
    if (written[id])
        return 0;
    written[id] = 1;
    strbuf_appendc(sb, '\n');
    append_prefix(sb, run->runid, runid_len, "fn ");
    append_u64(sb, id);
    strbuf_appendc(sb, ' ');
    append_name_text(sb, run->names[id].s, run->names[id].len);
    return 1;
}

/* Stable merge sort of arcs by wt, heaviest first: ties keep their order. */
static void sort_arcs(struct runline_arc *a, struct runline_arc *tmp, size_t n)
{
    if (n < 16) {
        for (size_t i = 1; i < n; i++) {
            struct runline_arc x = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1].v[RL_WT] < x.v[RL_WT]; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    size_t half = n / 2;
    sort_arcs(a, tmp, half);
    sort_arcs(a + half, tmp, n - half);
    if (a[half - 1].v[RL_WT] >= a[half].v[RL_WT])
        return; /* already in order */
    memcpy(tmp, a, half * sizeof *a);
    size_t i = 0, j = half, k = 0;
    while (i < half && j < n)
        a[k++] = a[j].v[RL_WT] > tmp[i].v[RL_WT] ? a[j++] : tmp[i++];
    while (i < half)
        a[k++] = tmp[i++];
}

static size_t digits_of(uint64_t v)
{
    size_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

size_t runline_write_run(strbuf *sb, const struct runline_run *run, struct runline_arc *arcs,
                         size_t narcs, size_t max_bytes, uint64_t *left_out)
{
    /* a longer run id is the caller's error; cut, it cannot overflow a line */
    size_t start = sb->len, runid_len = strnlen(run->runid, RUNLINE_RUNID_MAX);
    write_begin(sb, run, runid_len);
    size_t lines = 1;
    if (narcs > 1) {
        struct runline_arc *tmp = xmalloc(narcs / 2 * sizeof *tmp);
        sort_arcs(arcs, tmp, narcs);
        free(tmp);
    }
    /* the end line at its longest: "\n" prefix runid " end " SENT " " LEFT */
    size_t end_room = 1 + RUNLINE_PREFIX_LEN + runid_len + 5 + 2 * digits_of(narcs) + 1;
    unsigned char *written = xcalloc(run->nnames, 1);
    uint64_t sent = 0, left = 0;
    for (size_t i = 0; i < narcs; i++) {
        const struct runline_arc *a = &arcs[i];
        if (!arc_writable(run, a)) {
            left++;
            continue;
        }
        size_t before = sb->len, fns = 0;
        int new_caller = a->caller != RUNLINE_NO_CALLER &&
                         write_fn(sb, run, runid_len, a->caller, written);
        int new_callee = write_fn(sb, run, runid_len, a->callee, written);
        fns = (size_t)new_caller + (size_t)new_callee;
        write_arc(sb, run, runid_len, a);
        if (max_bytes && sb->len - start + end_room > max_bytes) {
            sb->len = before; /* left out: its names stay unwritten for later arcs */
            if (new_caller)
                written[a->caller] = 0;
            if (new_callee)
                written[a->callee] = 0;
            left++;
            continue;
        }
        sent++;
        lines += fns + 1;
    }
    free(written);
    strbuf_appendc(sb, '\n');
    append_prefix(sb, run->runid, runid_len, "end ");
    append_u64(sb, sent);
    strbuf_appendc(sb, ' ');
    append_u64(sb, left);
    *left_out = left;
    return lines + 1;
}
