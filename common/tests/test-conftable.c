/* Tests of conftable: defaults, binding, bounds and error messages. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conftable.h"
#include "test-suites.h"

struct sub_conf {
    long port;
    char *host;
};

struct test_conf {
    char *name;
    char *nodef;
    long count;
    double wait;
    int flag;
    int mode;
    struct sub_conf redis;
    long items;          /* filled by the custom binder: number of list items */
};

static char custom_key[64];

static int bind_items(const struct opt *opt, const struct ynode *node, void *field,
                      const char *key, struct conf_ctx *ctx)
{
    (void)opt;
    snprintf(custom_key, sizeof custom_key, "%s", key);
    if (node->type != YNODE_SEQ)
        return conf_error(ctx, node, key, "expected a list, custom");
    *(long *)field = (long)node->nitems;
    return 0;
}

static const struct opt sub_opts[] = {
    {"port", OPT_INT, offsetof(struct sub_conf, port), "6379", 1, 65535, .doc = "TCP port"},
    {"host", OPT_STRING, offsetof(struct sub_conf, host), "localhost", .doc = "host name"},
    {NULL},
};

static const struct opt test_opts[] = {
    {"name", OPT_STRING, offsetof(struct test_conf, name), "default-name", .doc = "a name"},
    {"nodef", OPT_STRING, offsetof(struct test_conf, nodef), NULL, .doc = "no default"},
    {"count", OPT_INT, offsetof(struct test_conf, count), "5", 1, 100, .doc = "how many"},
    {"wait", OPT_SECONDS, offsetof(struct test_conf, wait), "1.5", 0.1, 60, .doc = "how long"},
    {"flag", OPT_BOOL, offsetof(struct test_conf, flag), "false", .doc = "on or off"},
    {"mode", OPT_ENUM, offsetof(struct test_conf, mode), "fast", .choices = "slow|fast|auto",
     .doc = "speed"},
    {"redis", OPT_MAP, offsetof(struct test_conf, redis), .sub = sub_opts, .doc = "nested"},
    {"items", OPT_CUSTOM, offsetof(struct test_conf, items), NULL, .custom = bind_items,
     .doc = "a list"},
    {NULL},
};

struct fixture {
    struct ydoc doc;
    struct test_conf conf;
    char err[512];
    struct conf_ctx ctx;
};

/* Loads `text`, sets defaults and binds; returns conf_bind's result. */
static int bind_text(struct fixture *fx, const char *text, const char *prefix)
{
    memset(fx, 0, sizeof *fx);
    fx->ctx.file = "t.yaml";
    fx->ctx.err = fx->err;
    fx->ctx.errlen = sizeof fx->err;
    ck_assert_msg(ydoc_load_string("t.yaml", text, strlen(text), &fx->doc, fx->err,
                                   sizeof fx->err) == 0,
                  "YAML did not load: %s", fx->err);
    conf_set_defaults(test_opts, &fx->conf);
    return conf_bind(test_opts, fx->doc.root, &fx->conf, prefix, &fx->ctx);
}

static void fixture_free(struct fixture *fx)
{
    conf_free(test_opts, &fx->conf);
    ydoc_free(&fx->doc);
}

/* Binds one "key: value" document and expects exactly the error `want`. */
static void expect_error(const char *text, const char *want)
{
    struct fixture fx;
    ck_assert_msg(bind_text(&fx, text, "") == -1, "accepted: %s", text);
    ck_assert_str_eq(fx.err, want);
    fixture_free(&fx);
}

START_TEST(defaults_fill_every_field)
{
    struct test_conf c;
    memset(&c, 0, sizeof c);
    conf_set_defaults(test_opts, &c);
    ck_assert_str_eq(c.name, "default-name");
    ck_assert_ptr_null(c.nodef);
    ck_assert_int_eq(c.count, 5);
    ck_assert_double_eq_tol(c.wait, 1.5, 1e-9);
    ck_assert_int_eq(c.flag, 0);
    ck_assert_int_eq(c.mode, 1);
    ck_assert_int_eq(c.redis.port, 6379);
    ck_assert_str_eq(c.redis.host, "localhost");
    ck_assert_int_eq(c.items, 0);
    conf_free(test_opts, &c);
    ck_assert_ptr_null(c.name);
    ck_assert_ptr_null(c.redis.host);
}
END_TEST

START_TEST(binds_every_type)
{
    struct fixture fx;
    ck_assert_int_eq(bind_text(&fx,
                               "name: arclamp\nnodef: set\ncount: 100\nwait: 0.25\nflag: yes\n"
                               "mode: auto\nredis:\n  port: 1\n  host: r.example\n"
                               "items: [a, b, c]\n",
                               ""),
                     0);
    ck_assert_str_eq(fx.conf.name, "arclamp");
    ck_assert_str_eq(fx.conf.nodef, "set");
    ck_assert_int_eq(fx.conf.count, 100);
    ck_assert_double_eq_tol(fx.conf.wait, 0.25, 1e-12);
    ck_assert_int_eq(fx.conf.flag, 1);
    ck_assert_int_eq(fx.conf.mode, 2);
    ck_assert_int_eq(fx.conf.redis.port, 1);
    ck_assert_str_eq(fx.conf.redis.host, "r.example");
    ck_assert_int_eq(fx.conf.items, 3);
    ck_assert_str_eq(custom_key, "items");
    fixture_free(&fx);
}
END_TEST

START_TEST(keys_not_given_keep_their_defaults)
{
    struct fixture fx;
    ck_assert_int_eq(bind_text(&fx, "count: 7\nredis:\n  host: h\n", ""), 0);
    ck_assert_int_eq(fx.conf.count, 7);
    ck_assert_str_eq(fx.conf.name, "default-name");
    ck_assert_int_eq(fx.conf.redis.port, 6379);
    ck_assert_str_eq(fx.conf.redis.host, "h");
    fixture_free(&fx);
}
END_TEST

START_TEST(null_string_clears_the_default)
{
    struct fixture fx;
    ck_assert_int_eq(bind_text(&fx, "name: ~\n", ""), 0);
    ck_assert_ptr_null(fx.conf.name);
    fixture_free(&fx);
    ck_assert_int_eq(bind_text(&fx, "name: 'null'\n", ""), 0);
    ck_assert_str_eq(fx.conf.name, "null"); /* quoted: a string */
    fixture_free(&fx);
}
END_TEST

START_TEST(string_must_be_a_scalar)
{
    expect_error("name: [a]\n", "t.yaml:1: name: expected a string, got a list");
    expect_error("name:\n  a: 1\n", "t.yaml:2: name: expected a string, got a mapping");
}
END_TEST

START_TEST(int_at_bounds_is_accepted)
{
    struct fixture fx;
    ck_assert_int_eq(bind_text(&fx, "count: 1\n", ""), 0);
    ck_assert_int_eq(fx.conf.count, 1);
    fixture_free(&fx);
    ck_assert_int_eq(bind_text(&fx, "count: 100\n", ""), 0);
    ck_assert_int_eq(fx.conf.count, 100);
    fixture_free(&fx);
}
END_TEST

START_TEST(int_out_of_bounds_is_refused_with_range)
{
    expect_error("count: 0\n", "t.yaml:1: count: expected an integer from 1 to 100, got \"0\"");
    expect_error("name: x\ncount: 101\n",
                 "t.yaml:2: count: expected an integer from 1 to 100, got \"101\"");
    expect_error("count: -5\n", "t.yaml:1: count: expected an integer from 1 to 100, got \"-5\"");
    expect_error("count: 99999999999999999999999\n",
                 "t.yaml:1: count: expected an integer from 1 to 100, got "
                 "\"99999999999999999999999\"");
}
END_TEST

START_TEST(int_that_is_not_a_number_is_refused)
{
    expect_error("count: many\n",
                 "t.yaml:1: count: expected an integer from 1 to 100, got \"many\"");
    expect_error("count: 1.5\n", "t.yaml:1: count: expected an integer from 1 to 100, got \"1.5\"");
    expect_error("count: 5x\n", "t.yaml:1: count: expected an integer from 1 to 100, got \"5x\"");
    expect_error("count: ''\n", "t.yaml:1: count: expected an integer from 1 to 100, got \"\"");
    expect_error("count: [1]\n", "t.yaml:1: count: expected an integer, got a list");
}
END_TEST

START_TEST(seconds_accept_integers_and_fractions)
{
    struct fixture fx;
    ck_assert_int_eq(bind_text(&fx, "wait: 2\n", ""), 0);
    ck_assert_double_eq_tol(fx.conf.wait, 2.0, 1e-12);
    fixture_free(&fx);
    ck_assert_int_eq(bind_text(&fx, "wait: 0.1\n", ""), 0);
    ck_assert_double_eq_tol(fx.conf.wait, 0.1, 1e-12);
    fixture_free(&fx);
    ck_assert_int_eq(bind_text(&fx, "wait: 60\n", ""), 0);
    ck_assert_double_eq_tol(fx.conf.wait, 60.0, 1e-12);
    fixture_free(&fx);
}
END_TEST

START_TEST(seconds_out_of_bounds_or_not_numbers_are_refused)
{
    expect_error("wait: 0.05\n", "t.yaml:1: wait: expected seconds from 0.1 to 60, got \"0.05\"");
    expect_error("wait: 61\n", "t.yaml:1: wait: expected seconds from 0.1 to 60, got \"61\"");
    expect_error("wait: 1s\n", "t.yaml:1: wait: expected seconds from 0.1 to 60, got \"1s\"");
    expect_error("wait: inf\n", "t.yaml:1: wait: expected seconds from 0.1 to 60, got \"inf\"");
    expect_error("wait: nan\n", "t.yaml:1: wait: expected seconds from 0.1 to 60, got \"nan\"");
    expect_error("wait: ''\n", "t.yaml:1: wait: expected seconds from 0.1 to 60, got \"\"");
    expect_error("wait: {}\n", "t.yaml:1: wait: expected a number of seconds, got a mapping");
}
END_TEST

START_TEST(bool_accepts_all_spellings)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "on", "ON", "1"};
    static const char *const no[] = {"false", "False", "no", "NO", "off", "Off", "0"};
    char text[64];
    struct fixture fx;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        snprintf(text, sizeof text, "flag: %s\n", yes[i]);
        ck_assert_int_eq(bind_text(&fx, text, ""), 0);
        ck_assert_msg(fx.conf.flag == 1, "%s is not true", yes[i]);
        fixture_free(&fx);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        snprintf(text, sizeof text, "flag: %s\n", no[i]);
        ck_assert_int_eq(bind_text(&fx, text, ""), 0);
        ck_assert_msg(fx.conf.flag == 0, "%s is not false", no[i]);
        fixture_free(&fx);
    }
}
END_TEST

START_TEST(bool_refuses_other_words)
{
    expect_error("flag: maybe\n", "t.yaml:1: flag: expected true or false, got \"maybe\"");
    expect_error("flag: 2\n", "t.yaml:1: flag: expected true or false, got \"2\"");
    expect_error("flag: y\n", "t.yaml:1: flag: expected true or false, got \"y\"");
    expect_error("flag: [true]\n", "t.yaml:1: flag: expected true or false, got a list");
}
END_TEST

START_TEST(enum_stores_index_of_choice)
{
    struct fixture fx;
    ck_assert_int_eq(bind_text(&fx, "mode: slow\n", ""), 0);
    ck_assert_int_eq(fx.conf.mode, 0);
    fixture_free(&fx);
    ck_assert_int_eq(bind_text(&fx, "mode: auto\n", ""), 0);
    ck_assert_int_eq(fx.conf.mode, 2);
    fixture_free(&fx);
}
END_TEST

START_TEST(enum_refuses_other_values_case_and_prefixes)
{
    expect_error("mode: Fast\n",
                 "t.yaml:1: mode: expected one of slow|fast|auto, got \"Fast\"");
    expect_error("mode: fas\n", "t.yaml:1: mode: expected one of slow|fast|auto, got \"fas\"");
    expect_error("mode: fastest\n",
                 "t.yaml:1: mode: expected one of slow|fast|auto, got \"fastest\"");
    expect_error("mode: slow|fast\n",
                 "t.yaml:1: mode: expected one of slow|fast|auto, got \"slow|fast\"");
    expect_error("mode: ''\n", "t.yaml:1: mode: expected one of slow|fast|auto, got \"\"");
}
END_TEST

START_TEST(unknown_key_is_refused_with_file_line_and_key)
{
    expect_error("name: x\nbogus: 1\n", "t.yaml:2: bogus: unknown key");
    expect_error("count: 3\n\n\nName: x\n", "t.yaml:4: Name: unknown key");
}
END_TEST

START_TEST(nested_map_errors_have_the_prefixed_key)
{
    expect_error("redis:\n  host: h\n  port: 70000\n",
                 "t.yaml:3: redis.port: expected an integer from 1 to 65535, got \"70000\"");
    expect_error("redis:\n  nope: 1\n", "t.yaml:2: redis.nope: unknown key");
    expect_error("redis: 5\n", "t.yaml:1: redis: expected a mapping");
    expect_error("redis: [a]\n", "t.yaml:1: redis: expected a mapping");
}
END_TEST

START_TEST(null_nested_map_keeps_defaults)
{
    struct fixture fx;
    ck_assert_int_eq(bind_text(&fx, "redis:\ncount: 2\n", ""), 0);
    ck_assert_int_eq(fx.conf.redis.port, 6379);
    ck_assert_str_eq(fx.conf.redis.host, "localhost");
    fixture_free(&fx);
}
END_TEST

START_TEST(prefix_is_prepended_to_keys)
{
    struct fixture fx;
    ck_assert_int_eq(bind_text(&fx, "redis:\n  port: 0\n", "logs[2]"), -1);
    ck_assert_str_eq(fx.err, "t.yaml:2: logs[2].redis.port: expected an integer from 1 to 65535, "
                             "got \"0\"");
    fixture_free(&fx);
    ck_assert_int_eq(bind_text(&fx, "x: 1\n", "top"), -1);
    ck_assert_str_eq(fx.err, "t.yaml:1: top.x: unknown key");
    fixture_free(&fx);
}
END_TEST

START_TEST(custom_binder_gets_field_and_key)
{
    expect_error("count: 1\nitems: nope\n", "t.yaml:2: items: expected a list, custom");
    ck_assert_str_eq(custom_key, "items");
}
END_TEST

START_TEST(top_level_must_be_a_mapping)
{
    struct fixture fx;
    ck_assert_int_eq(bind_text(&fx, "- a\n- b\n", ""), -1);
    ck_assert_str_eq(fx.err, "t.yaml:1: (top level): expected a mapping");
    fixture_free(&fx);
    ck_assert_int_eq(bind_text(&fx, "just text\n", "sect"), -1);
    ck_assert_str_eq(fx.err, "t.yaml:1: sect: expected a mapping");
    fixture_free(&fx);
}
END_TEST

START_TEST(conf_error_without_node_uses_line_zero)
{
    char err[128];
    struct conf_ctx ctx = {"f.yaml", err, sizeof err, NULL};
    ck_assert_int_eq(conf_error(&ctx, NULL, "logs", "required key missing (%d)", 1), -1);
    ck_assert_str_eq(err, "f.yaml:0: logs: required key missing (1)");
}
END_TEST

START_TEST(conf_error_truncates_to_errlen)
{
    char err[16];
    struct conf_ctx ctx = {"f.yaml", err, sizeof err, NULL};
    conf_error(&ctx, NULL, "a.very.long.key", "and a long message");
    ck_assert_uint_eq(strlen(err), sizeof err - 1);
    ck_assert_str_eq(err, "f.yaml:0: a.ver");
}
END_TEST

START_TEST(help_lists_every_key_with_default_and_doc)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    conf_print_help(out, test_opts, "");
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "  name "));
    ck_assert_ptr_nonnull(strstr(text, "a name (default: default-name)\n"));
    ck_assert_ptr_nonnull(strstr(text, "how many (default: 5)\n"));
    ck_assert_ptr_nonnull(strstr(text, "  redis.port "));
    ck_assert_ptr_nonnull(strstr(text, "TCP port (default: 6379)\n"));
    ck_assert_ptr_nonnull(strstr(text, "no default\n")); /* no "(default: ...)" */
    ck_assert_ptr_null(strstr(text, "  redis  ")); /* the map itself is not a row */
    free(text);

    text = NULL;
    out = open_memstream(&text, &size);
    conf_print_help(out, sub_opts, "logs[]");
    fclose(out);
    ck_assert_ptr_nonnull(strstr(text, "  logs[].port "));
    free(text);
}
END_TEST

Suite *conftable_suite(void)
{
    Suite *s = suite_create("conftable");
    TCase *tc = tcase_create("bind");
    tcase_add_test(tc, defaults_fill_every_field);
    tcase_add_test(tc, binds_every_type);
    tcase_add_test(tc, keys_not_given_keep_their_defaults);
    tcase_add_test(tc, null_string_clears_the_default);
    tcase_add_test(tc, string_must_be_a_scalar);
    tcase_add_test(tc, int_at_bounds_is_accepted);
    tcase_add_test(tc, int_out_of_bounds_is_refused_with_range);
    tcase_add_test(tc, int_that_is_not_a_number_is_refused);
    tcase_add_test(tc, seconds_accept_integers_and_fractions);
    tcase_add_test(tc, seconds_out_of_bounds_or_not_numbers_are_refused);
    tcase_add_test(tc, bool_accepts_all_spellings);
    tcase_add_test(tc, bool_refuses_other_words);
    tcase_add_test(tc, enum_stores_index_of_choice);
    tcase_add_test(tc, enum_refuses_other_values_case_and_prefixes);
    suite_add_tcase(s, tc);

    tc = tcase_create("structure");
    tcase_add_test(tc, unknown_key_is_refused_with_file_line_and_key);
    tcase_add_test(tc, nested_map_errors_have_the_prefixed_key);
    tcase_add_test(tc, null_nested_map_keeps_defaults);
    tcase_add_test(tc, prefix_is_prepended_to_keys);
    tcase_add_test(tc, custom_binder_gets_field_and_key);
    tcase_add_test(tc, top_level_must_be_a_mapping);
    tcase_add_test(tc, conf_error_without_node_uses_line_zero);
    tcase_add_test(tc, conf_error_truncates_to_errlen);
    tcase_add_test(tc, help_lists_every_key_with_default_and_doc);
    suite_add_tcase(s, tc);
    return s;
}
