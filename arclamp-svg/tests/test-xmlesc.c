/* Tests of xmlesc: escaping of untrusted bytes for XML, script and JSON. */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "test-suites.h"
#include "xmlesc.h"

static char *escaped(const char *s, size_t len)
{
    static strbuf sb;   /* one result at a time, freed by the next call */
    strbuf_reset(&sb);
    xml_escape(&sb, s, len);
    return (char *)strbuf_cstr(&sb);
}

START_TEST(escapes_markup_characters)
{
    ck_assert_str_eq(escaped("<a href='x'>&\"</a>", 18),
                     "&lt;a href=&apos;x&apos;&gt;&amp;&quot;&lt;/a&gt;");
}
END_TEST

START_TEST(replaces_nul_and_control_bytes)
{
    ck_assert_str_eq(escaped("a\0b\001c\nd\x7f" "e", 9), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c"
                     "\xEF\xBF\xBD" "d\xEF\xBF\xBD" "e");
    ck_assert_str_eq(escaped("tab\there", 8), "tab\there");
}
END_TEST

START_TEST(replaces_invalid_utf8_keeps_valid)
{
    /* é (valid), a lone continuation byte, an overlong '/', a surrogate,
     * a truncated sequence at the end */
    const char in[] = "\xC3\xA9|\x80|\xC0\xAF|\xED\xA0\x80|\xE2\x82";
    ck_assert_str_eq(escaped(in, sizeof(in) - 1),
                     "\xC3\xA9|\xEF\xBF\xBD|\xEF\xBF\xBD\xEF\xBF\xBD|"
                     "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD|\xEF\xBF\xBD\xEF\xBF\xBD");
}
END_TEST

START_TEST(replaces_noncharacters_fffe_ffff)
{
    ck_assert_str_eq(escaped("\xEF\xBF\xBE\xEF\xBF\xBF", 6), "\xEF\xBF\xBD\xEF\xBF\xBD");
    ck_assert_str_eq(escaped("\xF0\x9F\x94\xA5", 4), "\xF0\x9F\x94\xA5");
}
END_TEST

START_TEST(cdata_terminator_cannot_survive)
{
    ck_assert_str_eq(escaped("]]></script>", 12), "]]&gt;&lt;/script&gt;");
}
END_TEST

START_TEST(js_string_escapes_everything_risky)
{
    strbuf sb = STRBUF_INIT;
    js_string(&sb, "a\"b</script>]]>\\\xF0\x9F\x94\xA5\x01", 21);
    ck_assert_str_eq(strbuf_cstr(&sb),
                     "\"a\\u0022b\\u003c\\u002fscript\\u003e\\u005d\\u005d\\u003e\\u005c"
                     "\\ud83d\\udd25\\ufffd\"");
    strbuf_free(&sb);
}
END_TEST

static char *json_of(const char *s, size_t len)
{
    strbuf sb = STRBUF_INIT;
    json_string(&sb, s, len);
    return (char *)strbuf_cstr(&sb);
}

START_TEST(json_strings_escape_and_keep_raw_bytes_as_surrogates)
{
    char *j = json_of("a\"b\\c\n\x01 \xc3\xa9 \xff\xfe", 13);
    ck_assert_str_eq(j, "\"a\\\"b\\\\c\\u000a\\u0001 \xc3\xa9 \\udcff\\udcfe\"");
    free(j);
    j = json_of("x\0y", 3);
    ck_assert_str_eq(j, "\"x\\u0000y\"");
    free(j);
}
END_TEST

START_TEST(utf8_length_counts_characters)
{
    ck_assert_uint_eq(utf8_length("h\xC3\xA9llo", 6), 5);
    ck_assert_uint_eq(utf8_length("\xFF\xFE", 2), 2);
}
END_TEST

START_TEST(to_ascii_writes_references_after_the_start)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "\xC3\xA9 kept; ");
    strbuf_appends(&sb, "<t a=\"caf\xC3\xA9\">\xF0\x9F\x94\xA5 &amp;</t>");
    xml_to_ascii(&sb, 9);
    ck_assert_str_eq(strbuf_cstr(&sb), "\xC3\xA9 kept; <t a=\"caf&#xE9;\">&#x1F525; &amp;</t>");
    strbuf_free(&sb);
}
END_TEST

Suite *xmlesc_suite(void)
{
    Suite *s = suite_create("xmlesc");
    TCase *tc = tcase_create("escape");
    tcase_add_test(tc, escapes_markup_characters);
    tcase_add_test(tc, replaces_nul_and_control_bytes);
    tcase_add_test(tc, replaces_invalid_utf8_keeps_valid);
    tcase_add_test(tc, replaces_noncharacters_fffe_ffff);
    tcase_add_test(tc, cdata_terminator_cannot_survive);
    tcase_add_test(tc, js_string_escapes_everything_risky);
    tcase_add_test(tc, json_strings_escape_and_keep_raw_bytes_as_surrogates);
    tcase_add_test(tc, utf8_length_counts_characters);
    tcase_add_test(tc, to_ascii_writes_references_after_the_start);
    suite_add_tcase(s, tc);
    return s;
}
