/* pprof: the writer of pprof profiles and their gzip form (see pprof.h; the
 * reader is pprofread.c).
 *
 * Protobuf's wire format, as much as a Profile needs: a field is a key
 * (field number << 3 | wire type) as a varint, then a varint (type 0) or a
 * length and that many bytes (type 2: strings, sub-messages, packed
 * repeated numbers). A Profile's top-level fields may come in any order and
 * repeat, so samples, locations and functions are appended as they come
 * and the string table is written last, whole. */
#include "pprof.h"
#include "keyedhash.h"
#include "vec.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <zlib.h>

/* Field numbers of profile.proto used here. */
enum {
    PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
    PROFILE_STRING_TABLE = 6, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
    VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
    SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
    LABEL_KEY = 1, LABEL_STR = 2,
    LOCATION_ID = 1, LOCATION_LINE = 4,
    LINE_FUNCTION_ID = 1,
    FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_FILENAME = 4,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

/* --- wire format ---------------------------------------------------------- */

static void put_varint(strbuf *out, uint64_t v)
{
    char b[10];
    size_t n = 0;
    while (v >= 0x80) {
        b[n++] = (char)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (char)v;
    strbuf_append(out, b, n);
}

static void put_key(strbuf *out, unsigned field, unsigned wire)
{
    put_varint(out, (uint64_t)field << 3 | wire);
}

/* A number field; zero is protobuf's default, so it is left out. int64
 * values are varints of their two's complement (negative ones take ten
 * bytes), which is what (uint64_t) gives. */
static void put_uint(strbuf *out, unsigned field, uint64_t v)
{
    if (v == 0)
        return;
    put_key(out, field, WIRE_VARINT);
    put_varint(out, v);
}

static void put_bytes(strbuf *out, unsigned field, const void *data, size_t len)
{
    put_key(out, field, WIRE_LEN);
    put_varint(out, len);
    strbuf_append(out, data, len);
}

/* --- strings -------------------------------------------------------------- */

static uint64_t string_hash(size_t index, void *ctx)
{
    const struct pprof_writer *w = ctx;
    return w->strings[index].hash;
}

uint64_t pprof_string(struct pprof_writer *w, const char *s, size_t len)
{
    uint64_t h = keyedhash(s, len);
    struct hashidx_walk walk;
    for (size_t i = hashidx_find(&w->string_index, h, &walk); i != HASHIDX_NONE;
         i = hashidx_next(&walk)) {
        const struct pprof_string_ref *r = &w->strings[i];
        if (r->hash == h && r->len == len && memcmp(w->names.data + r->off, s, len) == 0)
            return i;
    }
    /* The caller bounds the strings (pprof.h); past 2^31 is a bug there. */
    if (hashidx_reserve(&w->string_index, w->nstrings + 1, 256, string_hash, w) < 0)
        abort();
    VEC_RESERVE(w->strings, w->strings_cap, w->nstrings + 1, 256);
    w->strings[w->nstrings] = (struct pprof_string_ref){w->names.len, len, h};
    strbuf_append(&w->names, s, len);
    hashidx_insert(&w->string_index, h);
    return w->nstrings++;
}

static uint64_t cstring(struct pprof_writer *w, const char *s)
{
    return s ? pprof_string(w, s, strlen(s)) : 0;
}

/* --- messages ------------------------------------------------------------- */

void pprof_writer_init(struct pprof_writer *w)
{
    memset(w, 0, sizeof *w);
    strbuf_reserve(&w->names, 4096);   /* never NULL, even while only "" is in it */
    pprof_string(w, "", 0);   /* string_table[0] must be "" */
}

void pprof_writer_free(struct pprof_writer *w)
{
    strbuf_free(&w->messages);
    strbuf_free(&w->names);
    strbuf_free(&w->scratch);
    strbuf_free(&w->packed);
    free(w->strings);
    hashidx_free(&w->string_index);
}

/* Appends scratch as sub-message `field` of the Profile. */
static void flush_scratch(struct pprof_writer *w, unsigned field)
{
    put_bytes(&w->messages, field, w->scratch.data, w->scratch.len);
    strbuf_reset(&w->scratch);
}

static void value_type(struct pprof_writer *w, unsigned field, const char *type,
                       const char *unit)
{
    strbuf_reset(&w->scratch);
    put_uint(&w->scratch, VALUE_TYPE_TYPE, cstring(w, type));
    put_uint(&w->scratch, VALUE_TYPE_UNIT, cstring(w, unit));
    flush_scratch(w, field);
}

void pprof_sample_type(struct pprof_writer *w, const char *type, const char *unit)
{
    value_type(w, PROFILE_SAMPLE_TYPE, type, unit);
}

void pprof_period(struct pprof_writer *w, const char *type, const char *unit, int64_t period)
{
    value_type(w, PROFILE_PERIOD_TYPE, type, unit);
    put_uint(&w->messages, PROFILE_PERIOD, (uint64_t)period);
}

uint64_t pprof_function(struct pprof_writer *w, const char *name, size_t name_len,
                        const char *filename, size_t filename_len)
{
    uint64_t id = ++w->nfunctions;
    uint64_t name_idx = pprof_string(w, name, name_len);
    strbuf_reset(&w->scratch);
    put_uint(&w->scratch, FUNCTION_ID, id);
    put_uint(&w->scratch, FUNCTION_NAME, name_idx);
    /* No system_name: that is the mangled name of a native symbol, and a
     * function whose system_name equals its name is one pprof "demangles"
     * as C++, cutting "Foo::bar(int $x)" to "Foo::bar" and "<...>" out. */
    if (filename && filename_len)
        put_uint(&w->scratch, FUNCTION_FILENAME, pprof_string(w, filename, filename_len));
    flush_scratch(w, PROFILE_FUNCTION);

    /* Its location: one Line of that function, no mapping, no address. */
    strbuf line = STRBUF_INIT;
    put_uint(&line, LINE_FUNCTION_ID, id);
    put_uint(&w->scratch, LOCATION_ID, id);
    put_bytes(&w->scratch, LOCATION_LINE, line.data, line.len);
    flush_scratch(w, PROFILE_LOCATION);
    strbuf_free(&line);
    return id;
}

void pprof_sample(struct pprof_writer *w, const uint64_t *locations, size_t nlocations,
                  const int64_t *values, size_t nvalues, const struct pprof_label *labels,
                  size_t nlabels)
{
    strbuf_reset(&w->scratch);
    strbuf_reset(&w->packed);
    for (size_t i = 0; i < nlocations; i++)
        put_varint(&w->packed, locations[i]);
    if (nlocations)
        put_bytes(&w->scratch, SAMPLE_LOCATION_ID, w->packed.data, w->packed.len);
    strbuf_reset(&w->packed);
    for (size_t i = 0; i < nvalues; i++)
        put_varint(&w->packed, (uint64_t)values[i]);
    if (nvalues)
        put_bytes(&w->scratch, SAMPLE_VALUE, w->packed.data, w->packed.len);
    for (size_t i = 0; i < nlabels; i++) {
        strbuf_reset(&w->packed);
        put_uint(&w->packed, LABEL_KEY, labels[i].key);
        put_uint(&w->packed, LABEL_STR, labels[i].str);
        put_bytes(&w->scratch, SAMPLE_LABEL, w->packed.data, w->packed.len);
    }
    flush_scratch(w, PROFILE_SAMPLE);
}

void pprof_encode(struct pprof_writer *w, strbuf *out)
{
    strbuf_append(out, w->messages.data, w->messages.len);
    /* Every entry, "" included: a string field is written even when empty,
     * as the table's indexes count entries. */
    for (size_t i = 0; i < w->nstrings; i++)
        put_bytes(out, PROFILE_STRING_TABLE, w->names.data + w->strings[i].off,
                  w->strings[i].len);
}

/* --- gzip ----------------------------------------------------------------- */

/* windowBits 15 + 16: zlib's gzip wrapper. */
#define GZIP_WINDOW (15 + 16)

void pprof_gzip(const void *data, size_t len, strbuf *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        abort();   /* only out of memory, which aborts everywhere (strbuf.h) */
    z.next_in = (Bytef *)(uintptr_t)data;
    int rc;
    do {
        /* avail_in is 32-bit: feed at most 1 GiB at a time */
        if (z.avail_in == 0 && len > 0) {
            size_t chunk = len < (1u << 30) ? len : (1u << 30);
            z.avail_in = (uInt)chunk;
            len -= chunk;
        }
        strbuf_reserve(out, 1 << 16);
        z.next_out = (Bytef *)out->data + out->len;
        z.avail_out = (uInt)(out->cap - out->len - 1);
        size_t before = z.avail_out;
        rc = deflate(&z, len == 0 ? Z_FINISH : Z_NO_FLUSH);
        out->len += before - z.avail_out;
    } while (rc == Z_OK || rc == Z_BUF_ERROR);
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        abort();
}

int pprof_gunzip(const void *data, size_t len, size_t max, strbuf *out, char *err,
                 size_t errlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, GZIP_WINDOW) != Z_OK)
        abort();
    if (len > UINT32_MAX) {
        snprintf(err, errlen, "gzip input larger than 4 GiB");
        inflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    size_t start = out->len;
    int rc;
    do {
        strbuf_reserve(out, 1 << 16);
        z.next_out = (Bytef *)out->data + out->len;
        z.avail_out = (uInt)(out->cap - out->len - 1);
        size_t before = z.avail_out;
        rc = inflate(&z, Z_NO_FLUSH);
        out->len += before - z.avail_out;
        if (out->len - start > max) {
            snprintf(err, errlen, "more than %zu bytes after gunzip", max);
            inflateEnd(&z);
            return -1;
        }
    } while (rc == Z_OK);
    inflateEnd(&z);
    if (rc != Z_STREAM_END || z.avail_in != 0) {
        snprintf(err, errlen, "not a whole gzip stream (%s)", z.msg ? z.msg : "truncated");
        return -1;
    }
    strbuf_cstr(out);
    return 0;
}
