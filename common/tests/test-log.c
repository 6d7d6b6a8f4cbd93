/* Tests of log: quoting of untrusted text and the stderr line format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "test-suites.h"

static const char *quote(char *out, const char *in, size_t len, size_t max)
{
    log_quote(out, in, len, max);
    return out;
}

START_TEST(quote_keeps_printable_ascii)
{
    char out[4 * 64 + 4];
    ck_assert_str_eq(quote(out, "a;b c 1", 7, 64), "a;b c 1");
    ck_assert_str_eq(quote(out, "~!\"$%'", 6, 64), "~!\"$%'");
}
END_TEST

START_TEST(quote_escapes_control_bytes_as_hex)
{
    char out[4 * 64 + 4];
    ck_assert_str_eq(quote(out, "a\nb\rc\td\0e\x1f\x7f", 11, 64),
                     "a\\x0ab\\x0dc\\x09d\\x00e\\x1f\\x7f");
}
END_TEST

START_TEST(quote_escapes_backslash)
{
    char out[4 * 64 + 4];
    ck_assert_str_eq(quote(out, "a\\x41", 5, 64), "a\\x5cx41");
}
END_TEST

START_TEST(quote_escapes_non_ascii_bytewise)
{
    char out[4 * 64 + 4];
    ck_assert_str_eq(quote(out, "caf\xc3\xa9", 5, 64), "caf\\xc3\\xa9");
    ck_assert_str_eq(quote(out, "\x80\xff", 2, 64), "\\x80\\xff");
}
END_TEST

START_TEST(quote_truncates_at_max_with_ellipsis)
{
    char out[4 * 4 + 4];
    ck_assert_str_eq(quote(out, "abcdefgh", 8, 4), "abcd...");
    ck_assert_str_eq(quote(out, "abcd", 4, 4), "abcd"); /* exactly max: no "..." */
    ck_assert_str_eq(quote(out, "abc", 3, 4), "abc");
}
END_TEST

START_TEST(quote_worst_case_fits_documented_size)
{
    /* 4*max+4 bytes: every byte escaped plus "..." and the NUL. */
    enum { MAX = 16 };
    char in[40];
    memset(in, '\x01', sizeof in);
    char out[4 * MAX + 4 + 8];
    memset(out, '#', sizeof out);
    log_quote(out, in, sizeof in, MAX);
    ck_assert_uint_eq(strlen(out), 4 * MAX + 3);
    ck_assert_str_eq(out + 4 * MAX, "...");
    ck_assert_int_eq(out[4 * MAX + 4], '#'); /* nothing written past the documented size */
}
END_TEST

START_TEST(quote_of_empty_input_is_empty)
{
    char out[8] = "xxxxxxx";
    ck_assert_str_eq(quote(out, "", 0, 4), "");
}
END_TEST

START_TEST(target_names_parse)
{
    ck_assert_int_eq(log_target_from_name("auto"), LOG_TARGET_AUTO);
    ck_assert_int_eq(log_target_from_name("journal"), LOG_TARGET_JOURNAL);
    ck_assert_int_eq(log_target_from_name("stderr"), LOG_TARGET_STDERR);
    ck_assert_int_eq(log_target_from_name("syslog"), -1);
    ck_assert_int_eq(log_target_from_name("Stderr"), -1);
    ck_assert_int_eq(log_target_from_name(""), -1);
}
END_TEST

/* Runs log_event with stderr redirected to a file; returns what was written. */
static char *capture_stderr_begin(int *saved, char *path)
{
    strcpy(path, "/tmp/arclamp-test-log-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    *saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    return path;
}

static char *capture_stderr_end(int saved, const char *path)
{
    dup2(saved, STDERR_FILENO);
    close(saved);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    static char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    unlink(path);
    return text;
}

START_TEST(stderr_entry_has_ident_priority_event_message_and_fields)
{
    int saved;
    char path[64];
    unsetenv("JOURNAL_STREAM");
    log_setup("arclamp-test", LOG_TARGET_STDERR);
    log_set_max_priority(LOG_INFO);
    capture_stderr_begin(&saved, path);
    log_event(LOG_WARNING, "redis_disconnected",
              LOG_FIELDS({"ARCLAMP_CHANNEL", "excimer"}, {"ARCLAMP_SKIPPED", NULL},
                         {"ARCLAMP_COUNT", "3"}),
              "lost: %s %d", "timeout", 5);
    char *text = capture_stderr_end(saved, path);

    char expect[128];
    snprintf(expect, sizeof expect,
             " arclamp-test[%ld] warning redis_disconnected: lost: timeout 5 "
             "(ARCLAMP_CHANNEL=excimer ARCLAMP_COUNT=3)\n",
             (long)getpid());
    ck_assert_ptr_nonnull(strstr(text, expect));
    ck_assert_ptr_null(strstr(text, "SKIPPED"));
    /* "YYYY-MM-DDTHH:MM:SSZ " first, one line in all */
    ck_assert_uint_eq(strlen(text), 21 + strlen(expect) - 1);
    ck_assert_int_eq(text[10], 'T');
    ck_assert_int_eq(text[19], 'Z');
}
END_TEST

START_TEST(stderr_entry_stays_one_line_whatever_message_and_fields_hold)
{
    int saved;
    char path[64];
    unsetenv("JOURNAL_STREAM");
    log_setup("t", LOG_TARGET_STDERR);
    log_set_max_priority(LOG_DEBUG);
    capture_stderr_begin(&saved, path);
    log_event(LOG_ERR, "bad_file", LOG_FIELDS({"ARCLAMP_FILE", "x\n2026 t[1] error forged: y"}),
              "cannot open %s", "a\nb\r\x1b[31m");
    char *text = capture_stderr_end(saved, path);
    ck_assert_ptr_nonnull(strstr(text, "cannot open a\\x0ab\\x0d\\x1b[31m (ARCLAMP_FILE=x\\x0a2026"));
    ck_assert_ptr_eq(strchr(text, '\n'), text + strlen(text) - 1);
}
END_TEST

START_TEST(stderr_entry_without_fields_has_no_parentheses)
{
    int saved;
    char path[64];
    unsetenv("JOURNAL_STREAM");
    log_setup("t", LOG_TARGET_AUTO); /* not under systemd: stderr */
    log_set_max_priority(LOG_DEBUG);
    capture_stderr_begin(&saved, path);
    log_event(LOG_ERR, "boom", LOG_NO_FIELDS, "plain");
    log_event(LOG_DEBUG, "dbg", LOG_FIELDS({"K", NULL}), "only null fields");
    char *text = capture_stderr_end(saved, path);
    ck_assert_ptr_nonnull(strstr(text, " error boom: plain\n"));
    ck_assert_ptr_nonnull(strstr(text, " debug dbg: only null fields\n"));
    ck_assert_ptr_null(strchr(text, '('));
}
END_TEST

START_TEST(entries_below_max_priority_are_dropped)
{
    int saved;
    char path[64];
    unsetenv("JOURNAL_STREAM");
    log_setup("t", LOG_TARGET_STDERR);
    log_set_max_priority(LOG_WARNING);
    capture_stderr_begin(&saved, path);
    log_event(LOG_INFO, "quiet", LOG_NO_FIELDS, "not shown");
    log_event(LOG_NOTICE, "quiet2", LOG_NO_FIELDS, "not shown");
    log_event(LOG_WARNING, "loud", LOG_NO_FIELDS, "shown");
    char *text = capture_stderr_end(saved, path);
    ck_assert_ptr_null(strstr(text, "not shown"));
    ck_assert_ptr_nonnull(strstr(text, "loud: shown"));
}
END_TEST

Suite *log_suite(void)
{
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("quote");
    tcase_add_test(tc, quote_keeps_printable_ascii);
    tcase_add_test(tc, quote_escapes_control_bytes_as_hex);
    tcase_add_test(tc, quote_escapes_backslash);
    tcase_add_test(tc, quote_escapes_non_ascii_bytewise);
    tcase_add_test(tc, quote_truncates_at_max_with_ellipsis);
    tcase_add_test(tc, quote_worst_case_fits_documented_size);
    tcase_add_test(tc, quote_of_empty_input_is_empty);
    suite_add_tcase(s, tc);

    tc = tcase_create("event");
    tcase_add_test(tc, target_names_parse);
    tcase_add_test(tc, stderr_entry_has_ident_priority_event_message_and_fields);
    tcase_add_test(tc, stderr_entry_without_fields_has_no_parentheses);
    tcase_add_test(tc, stderr_entry_stays_one_line_whatever_message_and_fields_hold);
    tcase_add_test(tc, entries_below_max_priority_are_dropped);
    suite_add_tcase(s, tc);
    return s;
}
