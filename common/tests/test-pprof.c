/* Tests of pprof: the writer's bytes against protobuf's wire format worked
 * out by hand, round trips through the reader (hostile names included),
 * gzip both ways, and a reader that refuses malformed messages. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pprof.h"
#include "test-suites.h"

/* The string of index i in the decoded profile, compared with s. */
static void assert_string(const struct pprof_profile *p, int64_t i, const char *s, size_t len)
{
    size_t got_len;
    const char *got = pprof_profile_string(p, i, &got_len);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(got_len, len);
    ck_assert(memcmp(got, s, len) == 0);
}

static void decode_ok(struct pprof_writer *w, struct pprof_profile *p)
{
    strbuf raw = STRBUF_INIT;
    char err[256];
    pprof_encode(w, &raw);
    int rc = pprof_decode(raw.data, raw.len, p, err, sizeof err);
    ck_assert_msg(rc == 0, "decode: %s", err);
    strbuf_free(&raw);
}

START_TEST(writes_the_wire_format_of_a_sample_type)
{
    struct pprof_writer w;
    pprof_writer_init(&w);
    pprof_sample_type(&w, "samples", "count");
    strbuf raw = STRBUF_INIT;
    pprof_encode(&w, &raw);
    /* field 1 (sample_type), length 4: {type (1) = string 1, unit (2) = string 2};
     * then field 6 (string_table) three times: "", "samples", "count" */
    static const char expected[] = "\x0a\x04\x08\x01\x10\x02"
                                   "\x32\x00"
                                   "\x32\x07samples"
                                   "\x32\x05"
                                   "count";
    ck_assert_uint_eq(raw.len, sizeof expected - 1);
    ck_assert(memcmp(raw.data, expected, raw.len) == 0);
    strbuf_free(&raw);
    pprof_writer_free(&w);
}
END_TEST

START_TEST(writes_a_sample_with_packed_ids_and_multi_byte_varints)
{
    struct pprof_writer w;
    pprof_writer_init(&w);
    uint64_t ids[] = {1, 300};   /* 300 is the varint ac 02 */
    int64_t value = 150;         /* 96 01 */
    pprof_sample(&w, ids, 2, &value, 1, NULL, 0);
    strbuf raw = STRBUF_INIT;
    pprof_encode(&w, &raw);
    /* field 2 (sample), length 9: field 1 packed (0a, length 3: 01 ac 02),
     * field 2 packed (12, length 2: 96 01); then the table's "" */
    static const char expected[] = "\x12\x09\x0a\x03\x01\xac\x02\x12\x02\x96\x01\x32\x00";
    ck_assert_uint_eq(raw.len, sizeof expected - 1);
    ck_assert(memcmp(raw.data, expected, raw.len) == 0);
    strbuf_free(&raw);
    pprof_writer_free(&w);
}
END_TEST

START_TEST(round_trips_samples_locations_functions_and_labels)
{
    struct pprof_writer w;
    pprof_writer_init(&w);
    pprof_sample_type(&w, "samples", "count");
    pprof_period(&w, "wall", "microseconds", 10000);
    uint64_t file = pprof_function(&w, "/srv/w/index.php", 16, "/srv/w/index.php", 16);
    uint64_t fn = pprof_function(&w, "Foo::bar", 8, NULL, 0);
    ck_assert_uint_eq(file, 1);
    ck_assert_uint_eq(fn, 2);
    struct pprof_label label = {pprof_string(&w, "entrypoint", 10), pprof_string(&w, "index", 5)};
    uint64_t stack[] = {fn, file};   /* leaf first */
    int64_t big = INT64_MAX, negative = -1;
    pprof_sample(&w, stack, 2, &big, 1, &label, 1);
    pprof_sample(&w, stack + 1, 1, &negative, 1, NULL, 0);

    struct pprof_profile p;
    decode_ok(&w, &p);
    ck_assert_uint_eq(p.nsample_types, 1);
    assert_string(&p, p.sample_types[0].type, "samples", 7);
    assert_string(&p, p.sample_types[0].unit, "count", 5);
    assert_string(&p, p.period_type.type, "wall", 4);
    assert_string(&p, p.period_type.unit, "microseconds", 12);
    ck_assert_int_eq(p.period, 10000);

    ck_assert_uint_eq(p.nsamples, 2);
    ck_assert_uint_eq(p.samples[0].nlocations, 2);
    ck_assert_uint_eq(p.samples[0].locations[0], fn);
    ck_assert_uint_eq(p.samples[0].locations[1], file);
    ck_assert_uint_eq(p.samples[0].nvalues, 1);
    ck_assert(p.samples[0].values[0] == INT64_MAX);
    ck_assert_uint_eq(p.samples[0].nlabels, 1);
    assert_string(&p, (int64_t)p.samples[0].labels[0].key, "entrypoint", 10);
    assert_string(&p, (int64_t)p.samples[0].labels[0].str, "index", 5);
    ck_assert(p.samples[1].values[0] == -1);
    ck_assert_uint_eq(p.samples[1].nlabels, 0);

    /* each location: one line of the function with its id */
    ck_assert_uint_eq(p.nlocations, 2);
    ck_assert_uint_eq(p.nfunctions, 2);
    for (uint64_t id = 1; id <= 2; id++) {
        const struct pprof_read_location *loc = pprof_profile_location(&p, id);
        ck_assert_ptr_nonnull(loc);
        ck_assert_uint_eq(loc->nlines, 1);
        ck_assert_uint_eq(loc->function_id, id);
    }
    const struct pprof_read_function *f1 = pprof_profile_function(&p, file);
    const struct pprof_read_function *f2 = pprof_profile_function(&p, fn);
    assert_string(&p, f1->name, "/srv/w/index.php", 16);
    assert_string(&p, f1->filename, "/srv/w/index.php", 16);
    assert_string(&p, f2->name, "Foo::bar", 8);
    ck_assert_int_eq(f2->system_name, 0);   /* left out: pprof would "demangle" the name */
    ck_assert_int_eq(f2->filename, 0);   /* none: string 0, "" */
    assert_string(&p, 0, "", 0);
    ck_assert_ptr_null(pprof_profile_location(&p, 3));
    ck_assert_ptr_null(pprof_profile_string(&p, (int64_t)p.nstrings, NULL));
    pprof_profile_free(&p);
    pprof_writer_free(&w);
}
END_TEST

START_TEST(hostile_names_round_trip_and_are_stored_once)
{
    static const char nul_inside[] = "a\0b";
    static const char *const names[] = {
        "Quote\"d::m", "Back\\slash\\", "</script><script>alert(1)</script>",
        "\xc2\x85next-line\xe2\x80\xa8separator", "{\"json\":[1,2]}",
    };
    size_t nnames = sizeof names / sizeof names[0];
    struct pprof_writer w;
    pprof_writer_init(&w);
    strbuf longname = STRBUF_INIT;
    for (int i = 0; i < 100000; i++)
        strbuf_appendc(&longname, (char)('a' + i % 26));
    uint64_t ids[8];
    for (size_t i = 0; i < nnames; i++)
        ids[i] = pprof_function(&w, names[i], strlen(names[i]), NULL, 0);
    ids[nnames] = pprof_function(&w, longname.data, longname.len, NULL, 0);
    ids[nnames + 1] = pprof_function(&w, nul_inside, 3, NULL, 0);
    /* the same string again is the same index */
    ck_assert_uint_eq(pprof_string(&w, names[0], strlen(names[0])),
                      pprof_string(&w, names[0], strlen(names[0])));
    size_t strings_before = w.nstrings;
    pprof_string(&w, longname.data, longname.len);
    ck_assert_uint_eq(w.nstrings, strings_before);

    struct pprof_profile p;
    decode_ok(&w, &p);
    for (size_t i = 0; i < nnames; i++)
        assert_string(&p, pprof_profile_function(&p, ids[i])->name, names[i], strlen(names[i]));
    assert_string(&p, pprof_profile_function(&p, ids[nnames])->name, longname.data,
                  longname.len);
    assert_string(&p, pprof_profile_function(&p, ids[nnames + 1])->name, nul_inside, 3);
    ck_assert_uint_eq(p.nstrings, w.nstrings);
    pprof_profile_free(&p);
    strbuf_free(&longname);
    pprof_writer_free(&w);
}
END_TEST

START_TEST(interns_many_strings)
{
    struct pprof_writer w;
    pprof_writer_init(&w);
    char name[32];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 5000; i++) {
            int n = snprintf(name, sizeof name, "f%d", i);
            ck_assert_uint_eq(pprof_string(&w, name, (size_t)n), (uint64_t)i + 1);
        }
    }
    ck_assert_uint_eq(w.nstrings, 5001);
    pprof_writer_free(&w);
}
END_TEST

START_TEST(gzip_round_trips_and_gunzip_is_bounded)
{
    strbuf plain = STRBUF_INIT, gz = STRBUF_INIT, back = STRBUF_INIT;
    for (int i = 0; i < 200000; i++)
        strbuf_appendf(&plain, "%d;", i);
    pprof_gzip(plain.data, plain.len, &gz);
    ck_assert_uint_gt(gz.len, 18);
    ck_assert_int_eq((unsigned char)gz.data[0], 0x1f);   /* gzip magic */
    ck_assert_int_eq((unsigned char)gz.data[1], 0x8b);
    char err[256];
    ck_assert_int_eq(pprof_gunzip(gz.data, gz.len, plain.len, &back, err, sizeof err), 0);
    ck_assert_uint_eq(back.len, plain.len);
    ck_assert(memcmp(back.data, plain.data, plain.len) == 0);

    strbuf_reset(&back);
    ck_assert_int_eq(pprof_gunzip(gz.data, gz.len, plain.len - 1, &back, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "more than"));
    strbuf_reset(&back);
    ck_assert_int_eq(pprof_gunzip(gz.data, gz.len / 2, plain.len, &back, err, sizeof err), -1);
    strbuf_reset(&back);
    ck_assert_int_eq(pprof_gunzip(plain.data, 100, plain.len, &back, err, sizeof err), -1);
    strbuf_free(&plain);
    strbuf_free(&gz);
    strbuf_free(&back);
}
END_TEST

/* Decodes a literal: the return code (err for a failure). */
#define DECODE_LIT(lit, p, err) pprof_decode((lit), sizeof(lit) - 1, (p), (err), sizeof(err))

START_TEST(refuses_malformed_messages)
{
    static const struct {
        const char *bytes;
        size_t len;
        const char *why;
    } bad[] = {
        {"\x32", 1, "varint cut short"},
        {"\x32\x05" "ab", 4, "past the end"},
        {"\x12\x03\x0a\x05\x01", 5, "past the end"},
        {"\x60\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, "longer than 10"},
        {"\x32\x01x", 3, "string_table[0]"},
        {"", 0, "string_table[0]"},
        {"\x9f\x06", 2, "unknown wire type"},
        {"\x32\x00\x9d\x06\x01\x02", 6, "fixed field cut short"},
        {"\x00\x01", 2, "field number 0"},
    };
    char err[256];
    struct pprof_profile p;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(pprof_decode(bad[i].bytes, bad[i].len, &p, err, sizeof err), -1);
        ck_assert_msg(strstr(err, bad[i].why), "case %zu: \"%s\" lacks \"%s\"", i, err,
                      bad[i].why);
        pprof_profile_free(&p);
    }
}
END_TEST

START_TEST(skips_unknown_fields_and_reads_unpacked_numbers)
{
    /* a mapping (3), time_nanos (9), a fixed64 field 99 and a fixed32 field
     * 100 beside the string table; a sample with location ids unpacked */
    static const char msg[] = "\x1a\x02\x08\x01"
                              "\x48\x80\x01"
                              "\x99\x06\x01\x02\x03\x04\x05\x06\x07\x08"
                              "\xa5\x06\x01\x02\x03\x04"
                              "\x12\x06\x08\x07\x08\x09\x10\x01"
                              "\x32\x00";
    struct pprof_profile p;
    char err[256];
    ck_assert_msg(DECODE_LIT(msg, &p, err) == 0, "%s", err);
    ck_assert_uint_eq(p.nsamples, 1);
    ck_assert_uint_eq(p.samples[0].nlocations, 2);
    ck_assert_uint_eq(p.samples[0].locations[0], 7);
    ck_assert_uint_eq(p.samples[0].locations[1], 9);
    ck_assert(p.samples[0].values[0] == 1);
    ck_assert_uint_eq(p.nstrings, 1);
    pprof_profile_free(&p);
}
END_TEST

Suite *pprof_suite(void)
{
    Suite *s = suite_create("pprof");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, writes_the_wire_format_of_a_sample_type);
    tcase_add_test(tc, writes_a_sample_with_packed_ids_and_multi_byte_varints);
    tcase_add_test(tc, round_trips_samples_locations_functions_and_labels);
    tcase_add_test(tc, hostile_names_round_trip_and_are_stored_once);
    tcase_add_test(tc, interns_many_strings);
    tcase_add_test(tc, gzip_round_trips_and_gunzip_is_bounded);
    tcase_add_test(tc, refuses_malformed_messages);
    tcase_add_test(tc, skips_unknown_fields_and_reads_unpacked_numbers);
    suite_add_tcase(s, tc);
    return s;
}
