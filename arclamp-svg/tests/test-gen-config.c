/* Tests of the generator's configuration (defaults, keys, validation, title
 * templates) and of how log file names are read (logset). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen_config.h"
#include "logset.h"
#include "palette.h"
#include "strbuf.h"
#include "test-suites.h"

static struct gen_config cfg;
static char err[1024];

static int load(const char *yaml, const char *data_dir)
{
    err[0] = '\0';
    return gen_config_load_string("test.yaml", yaml, data_dir, &cfg, err, sizeof err);
}

static void load_fails_with(const char *yaml, const char *needle)
{
    ck_assert_int_eq(load(yaml, NULL), -1);
    ck_assert_msg(strstr(err, needle) != NULL, "error \"%s\" lacks \"%s\"", err, needle);
}

static char *title_of(const char *tmpl, const struct gen_title_vars *v)
{
    strbuf sb = STRBUF_INIT;
    gen_title(&sb, tmpl, v);
    return (char *)strbuf_cstr(&sb);
}

START_TEST(defaults_without_any_file)
{
    ck_assert_int_eq(load(NULL, NULL), 0);
    ck_assert_str_eq(cfg.data_dir, "/srv/arclamp");
    ck_assert_str_eq(cfg.logs_dir, "/srv/arclamp/logs");
    ck_assert_str_eq(cfg.svgs_dir, "/srv/arclamp/svgs");
    ck_assert_str_eq(cfg.lock_file, "/srv/arclamp/.arclamp-svg/run.lock");
    ck_assert_str_eq(cfg.title, "MediaWiki - {period} - {time}");
    ck_assert_str_eq(cfg.font_type, "monospace");
    ck_assert_double_eq(cfg.font_size, 11);
    ck_assert_double_eq(cfg.min_width, 1);
    ck_assert_int_eq(cfg.width, 1200);
    ck_assert_int_eq(cfg.palette, PALETTE_HOT);
    ck_assert_int_eq(cfg.reversed_palette, PALETTE_BLUE);
    ck_assert_ptr_null(cfg.path);
    ck_assert_int_eq(cfg.max_stacks, 1000000);
    ck_assert_int_eq(cfg.max_frames, 1000000);
    ck_assert_int_eq(cfg.max_memory_mb, 96);
    ck_assert_int_eq(cfg.max_svg_mb, 32);
    ck_assert_int_eq(cfg.max_log_read_mb, 16384);
    gen_config_free(&cfg);
}
END_TEST

START_TEST(limits_are_read_and_bounded)
{
    ck_assert_int_eq(load("max_stacks: 5\nmax_frames: 7\nmax_memory_mb: 8\nmax_svg_mb: 1\n"
                          "max_log_read_mb: 2\n", NULL), 0);
    ck_assert_int_eq(cfg.max_stacks, 5);
    ck_assert_int_eq(cfg.max_frames, 7);
    ck_assert_int_eq(cfg.max_memory_mb, 8);
    ck_assert_int_eq(cfg.max_svg_mb, 1);
    ck_assert_int_eq(cfg.max_log_read_mb, 2);
    gen_config_free(&cfg);
    load_fails_with("max_stacks: 0\n", "max_stacks");
    load_fails_with("max_memory_mb: 7\n", "max_memory_mb");
    load_fails_with("max_svg_mb: 0\n", "max_svg_mb");
    load_fails_with("max_log_read_mb: lots\n", "max_log_read_mb");
}
END_TEST

START_TEST(default_functions_are_the_production_list)
{
    ck_assert_int_eq(load(NULL, NULL), 0);
    ck_assert_uint_eq(cfg.nfunctions, 4);
    ck_assert_str_eq(cfg.functions[0].function, "MediaWiki\\Actions\\EditAction::show");
    ck_assert_str_eq(cfg.functions[0].label, "EditAction");
    ck_assert_str_eq(cfg.functions[1].label, "PreSend");
    ck_assert_str_eq(cfg.functions[1].function,
                     "MediaWiki\\MediaWikiEntryPoint::prepareForOutput");
    ck_assert_str_eq(cfg.functions[2].label, "PostSend");
    ck_assert_str_eq(cfg.functions[3].function, "UploadBase::performUpload");
    ck_assert_str_eq(cfg.functions[3].label, "Upload");
    gen_config_free(&cfg);
}
END_TEST

START_TEST(data_dir_moves_the_derived_paths)
{
    ck_assert_int_eq(load("data_dir: /data/al/\n", NULL), 0);
    ck_assert_str_eq(cfg.data_dir, "/data/al");
    ck_assert_str_eq(cfg.logs_dir, "/data/al/logs");
    ck_assert_str_eq(cfg.svgs_dir, "/data/al/svgs");
    ck_assert_str_eq(cfg.lock_file, "/data/al/.arclamp-svg/run.lock");
    gen_config_free(&cfg);
}
END_TEST

START_TEST(data_dir_option_overrides_file_but_not_explicit_dirs)
{
    ck_assert_int_eq(load("data_dir: /a\nlogs_dir: /var/log/arclamp\n", "/b"), 0);
    ck_assert_str_eq(cfg.data_dir, "/b");
    ck_assert_str_eq(cfg.logs_dir, "/var/log/arclamp");
    ck_assert_str_eq(cfg.svgs_dir, "/b/svgs");
    gen_config_free(&cfg);
}
END_TEST

START_TEST(keys_are_read)
{
    const char *yaml = "title: \"{entrypoint} at {time}: {samples}\"\n"
                       "font_type: Verdana\nfont_size: 12.5\nmin_width: 0.1\nwidth: 1600\n"
                       "colors: java\nreversed_colors: aqua\ngzip_level: 9\nlog_target: stderr\n"
                       "functions:\n  - {function: 'Foo::bar', label: Foo_1}\n";
    ck_assert_int_eq(load(yaml, NULL), 0);
    ck_assert_str_eq(cfg.title, "{entrypoint} at {time}: {samples}");
    ck_assert_str_eq(cfg.font_type, "Verdana");
    ck_assert_double_eq(cfg.font_size, 12.5);
    ck_assert_double_eq(cfg.min_width, 0.1);
    ck_assert_int_eq(cfg.width, 1600);
    ck_assert_int_eq(cfg.palette, PALETTE_JAVA);
    ck_assert_int_eq(cfg.reversed_palette, PALETTE_AQUA);
    ck_assert_int_eq(cfg.gzip_level, 9);
    ck_assert_uint_eq(cfg.nfunctions, 1);
    ck_assert_str_eq(cfg.functions[0].function, "Foo::bar");
    ck_assert_str_eq(cfg.functions[0].label, "Foo_1");
    gen_config_free(&cfg);
}
END_TEST

START_TEST(empty_functions_list_disables_them)
{
    ck_assert_int_eq(load("functions: []\n", NULL), 0);
    ck_assert_uint_eq(cfg.nfunctions, 0);
    gen_config_free(&cfg);
}
END_TEST

START_TEST(unknown_key_is_refused_with_its_line)
{
    load_fails_with("width: 1000\nfont-size: 3\n", "test.yaml:2: font-size: unknown key");
}
END_TEST

START_TEST(bad_values_are_refused)
{
    load_fails_with("colors: rainbow\n", "colors: unknown palette");
    load_fails_with("font_size: big\n", "font_size: expected a number");
    load_fails_with("width: 10\n", "width: expected an integer");
    load_fails_with("log_target: syslog\n", "log_target");
    load_fails_with("data_dir: \"\"\n", "data_dir: must not be empty");
    load_fails_with("title: \"{period} {tme}\"\n", "unknown placeholder {tme}");
    load_fails_with("svgs_dir: /srv/arclamp/logs\n", "must be separate directories");
    load_fails_with("svgs_dir: /srv/arclamp\n", "must be separate directories");
    load_fails_with("logs_dir: /srv/arclamp/svgs/logs\n", "must be separate directories");
}
END_TEST

START_TEST(bad_functions_are_refused)
{
    load_fails_with("functions: [{function: a, label: 'x/y'}]\n", "label may only hold");
    load_fails_with("functions: [{function: a, label: '../x'}]\n", "label may only hold");
    load_fails_with("functions: [{function: 'a;b', label: x}]\n", "one frame name");
    load_fails_with("functions: [{function: a}]\n", "needs both");
    load_fails_with("functions: [{function: a, label: x, colour: red}]\n", "unknown key");
    load_fails_with("functions: [{function: a, label: x}, {function: b, label: x}]\n",
                    "used twice");
    load_fails_with("functions: EditAction\n", "expected a list");
    strbuf many = STRBUF_INIT;
    strbuf_appends(&many, "functions:\n");
    for (int i = 0; i < 65; i++)
        strbuf_appendf(&many, "  - {function: f%d, label: l%d}\n", i, i);
    load_fails_with(strbuf_cstr(&many), "at most 64 functions");
    strbuf_free(&many);
}
END_TEST

START_TEST(title_fills_placeholders_and_shows_time_with_spaces)
{
    struct gen_title_vars v = {"hourly", "2026-11-22_05", "2026-11-22_05.excimer.index", "index",
                               NULL, 0, 12345};
    char *t = title_of("MediaWiki - {period} - {time} - {entrypoint} - {samples}", &v);
    ck_assert_str_eq(t, "MediaWiki - hourly - 2026-11-22 05 - index - 12,345 samples");
    free(t);
    t = title_of("{name} {entrypoint} {x} { {samples}", &v);
    ck_assert_str_eq(t, "2026-11-22_05.excimer.index index {x} { 12,345 samples");
    free(t);
}
END_TEST

START_TEST(title_always_says_entry_point_and_samples)
{
    /* a template without them (the original's, the packaged default) gets
     * both appended, the samples last */
    struct gen_title_vars v = {"hourly", "2026-11-22_05", "2026-11-22_05.excimer.api", "api",
                               NULL, 0, 1};
    char *t = title_of("MediaWiki - {period} - {time}", &v);
    ck_assert_str_eq(t, "MediaWiki - hourly - 2026-11-22 05 - api (1 sample)");
    free(t);
    v.samples = 0;
    t = title_of("{name}", &v);   /* {name} holds the entry point already */
    ck_assert_str_eq(t, "2026-11-22_05.excimer.api (0 samples)");
    free(t);
    v.samples = 2.5;
    t = title_of("{samples} of {entrypoint}", &v);
    ck_assert_str_eq(t, "2.5 samples of api");
    free(t);
}
END_TEST

START_TEST(title_of_reversed_and_function_graphs)
{
    struct gen_title_vars v = {"daily", "2026-11-22", "2026-11-22.all", "all", "EditAction", 1,
                               1234567};
    char *t = title_of("MediaWiki - {period} - {time}", &v);
    ck_assert_str_eq(t, "MediaWiki - daily - 2026-11-22 - all - EditAction - reversed "
                        "(1,234,567 samples)");
    free(t);
    v.label = NULL;
    t = title_of("MediaWiki - {period} - {time}", &v);
    ck_assert_str_eq(t, "MediaWiki - daily - 2026-11-22 - all - reversed (1,234,567 samples)");
    free(t);
    t = title_of("{entrypoint}: {samples}", &v);
    ck_assert_str_eq(t, "all: 1,234,567 samples - reversed");
    free(t);
}
END_TEST

START_TEST(graph_names)
{
    strbuf sb = STRBUF_INIT;
    gen_graph_name(&sb, "2026-11-22.all", NULL, 0);
    ck_assert_str_eq(strbuf_cstr(&sb), "2026-11-22.all.svgz");
    strbuf_reset(&sb);
    gen_graph_name(&sb, "2026-11-22.all", "PreSend", 1);
    ck_assert_str_eq(strbuf_cstr(&sb), "2026-11-22.all.fn-PreSend.reversed.svgz");
    strbuf_free(&sb);
}
END_TEST

/* --- logset: names -------------------------------------------------------- */

static struct logfile parsed(const char *name, time_t mtime)
{
    struct logfile lf;
    memset(&lf, 0, sizeof lf);
    lf.name = (char *)name;
    lf.mtime.tv_sec = mtime;
    logset_parse_name(&lf);
    return lf;
}

START_TEST(hourly_name_gives_time_and_entry_point)
{
    struct logfile lf = parsed("2026-11-22_05.excimer.index", 0);
    ck_assert(lf.time_from_name);
    ck_assert_str_eq(lf.time, "2026-11-22_05");
    ck_assert_str_eq(lf.date, "2026-11-22");
    ck_assert_str_eq(lf.entrypoint, "index");
    ck_assert_int_eq(lf.timestamp, 1795323600); /* 2026-11-22T05:00:00Z */
}
END_TEST

START_TEST(daily_name_gives_midnight)
{
    struct logfile lf = parsed("2026-11-22.all", 0);
    ck_assert_str_eq(lf.time, "2026-11-22");
    ck_assert_str_eq(lf.entrypoint, "all");
    ck_assert_int_eq(lf.timestamp, 1795305600);
}
END_TEST

START_TEST(name_without_valid_date_uses_mtime)
{
    const char *names[] = {"weird.api", "2026-13-01.api", "2026-02-30.api", "2026-11-22_24.api",
                           "2026-11-22x.api", "2026-1", "2026-", "2026-11-2"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        struct logfile lf = parsed(names[i], 1700000000);
        ck_assert_msg(!lf.time_from_name, "%s", names[i]);
        ck_assert_int_eq(lf.timestamp, 1700000000);
        ck_assert_str_eq(lf.date, "2023-11-14");
    }
    ck_assert_str_eq(parsed("weird.api", 0).entrypoint, "api");
    ck_assert_str_eq(parsed("noext", 0).entrypoint, "noext");
}
END_TEST

START_TEST(log_names_and_suffixes)
{
    int gz = -1;
    char *n = logset_log_name("2026-11-22.all.log", &gz);
    ck_assert_str_eq(n, "2026-11-22.all");
    ck_assert_int_eq(gz, 0);
    free(n);
    n = logset_log_name("2026-11-22.all.log.gz", &gz);
    ck_assert_str_eq(n, "2026-11-22.all");
    ck_assert_int_eq(gz, 1);
    free(n);
    ck_assert_ptr_null(logset_log_name(".arclamp-tmp-0123", &gz));
    ck_assert_ptr_null(logset_log_name("x.log.bz2", &gz));
    ck_assert_ptr_null(logset_log_name(".log", &gz));
    ck_assert_ptr_null(logset_log_name("x.svgz", &gz));
    /* arclamp-log's run logs are no trace logs: never drawn, never sorted */
    ck_assert_ptr_null(logset_log_name("2026-11-22.all.runs", &gz));
    ck_assert_ptr_null(logset_log_name("2026-11-22.index.runs.gz", &gz));
}
END_TEST

static void touch(const char *dir, const char *name, time_t mtime)
{
    char *p = path_join(dir, name);
    file_write(p, "a 1\n", 4);
    file_set_mtime(p, mtime);
    free(p);
}

START_TEST(scan_orders_newest_first_and_prefers_plain_over_gz)
{
    char *root = tmpdir_make();
    char *hourly = path_join(root, "hourly");
    ck_assert_int_eq(mkdir(hourly, 0755), 0);
    touch(hourly, "2026-11-22_04.all.log", 1000);
    touch(hourly, "2026-11-22_05.all.log", 1000);
    touch(hourly, "2026-11-22_05.all.log.gz", 1000);
    touch(hourly, "2026-11-22_03.all.log.gz", 1000);
    touch(hourly, "notes.txt", 1000);
    touch(hourly, ".arclamp-tmp-1.log", 1000);
    char *link = path_join(hourly, "2026-11-22_06.all.log");
    ck_assert_int_eq(symlink("2026-11-22_05.all.log", link), 0);
    struct logset set;
    struct gen_config lcfg;
    ck_assert_int_eq(gen_config_load_string("t", NULL, "/x", &lcfg, err, sizeof err), 0);
    free(lcfg.logs_dir);
    lcfg.logs_dir = xstrdup(root);
    ck_assert_int_eq(logset_scan(&lcfg, NULL, &set, err, sizeof err), 0);
    gen_config_free(&lcfg);
    ck_assert_uint_eq(set.nperiods, 1);
    ck_assert_uint_eq(set.n, 3);
    ck_assert_str_eq(set.files[0].file, "2026-11-22_05.all.log");
    ck_assert_str_eq(set.files[1].file, "2026-11-22_04.all.log");
    ck_assert_str_eq(set.files[2].file, "2026-11-22_03.all.log.gz");
    ck_assert_int_eq(set.files[2].gz, 1);
    logset_free(&set);
    free(link);
    free(hourly);
    tmpdir_remove(root);
}
END_TEST

START_TEST(scan_of_missing_dir_is_empty)
{
    struct logset set;
    struct gen_config lcfg;
    ck_assert_int_eq(gen_config_load_string("t", NULL, "/nonexistent/arclamp", &lcfg, err,
                                            sizeof err), 0);
    ck_assert_int_eq(logset_scan(&lcfg, NULL, &set, err, sizeof err), 0);
    gen_config_free(&lcfg);
    ck_assert_uint_eq(set.n, 0);
    ck_assert_uint_eq(set.nperiods, 0);
    logset_free(&set);
}
END_TEST

/* --- logset: names that could collide (issue 14) ------------------------- */

static const char *classify(const char *name, struct logfile *out)
{
    static char *const formats[] = {(char *)"%Y-%m-%d_%H.excimer", (char *)"%Y-%m-%d.excimer",
                                    (char *)"%Y-%m-%d"};
    memset(out, 0, sizeof *out);
    out->name = (char *)name;
    logset_parse_name(out);
    return logset_classify(out, formats, 3);
}

START_TEST(tags_that_could_collide_are_refused)
{
    struct logfile lf;
    const char *refused[] = {
        "2026-11-22.excimer.index.reversed",   /* index's reversed graph */
        "2026-11-22.excimer.all.fn-EditAction", /* the all log's EditAction graph */
        "2026-11-22.excimer.evil.all",         /* an "all" log to top */
        "2026-11-22.excimer.fn-x",
        "2026-11-22.excimer.a..b",
        "2026-11-22.excimer.in dex",
        "2026-11-22.excimer.reversed",
        "not-a-bucket.all",                    /* no format: cannot be an all log */
        "whatever.index.reversed",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        ck_assert_msg(classify(refused[i], &lf) != NULL, "%s accepted", refused[i]);
}
END_TEST

START_TEST(true_all_logs_and_tags_are_read_with_the_formats)
{
    struct logfile lf;
    ck_assert_ptr_null(classify("2026-11-22_05.excimer.all", &lf));
    ck_assert(lf.is_all);
    ck_assert_str_eq(lf.entrypoint, "all");
    ck_assert_ptr_null(classify("2026-11-22.excimer.all", &lf)); /* not %Y-%m-%d's excimer.all */
    ck_assert(lf.is_all);
    ck_assert_ptr_null(classify("2026-11-22.all", &lf));
    ck_assert(lf.is_all);
    ck_assert_ptr_null(classify("2026-11-22.excimer.foo.bar", &lf));
    ck_assert(!lf.is_all);
    ck_assert_str_eq(lf.entrypoint, "foo.bar");
    ck_assert_ptr_null(classify("2026-11-22_05.excimer.index", &lf));
    ck_assert_str_eq(lf.entrypoint, "index");
    ck_assert_ptr_null(classify("custom-name.api", &lf)); /* no format: old reading */
    ck_assert(!lf.is_all);
    ck_assert_str_eq(lf.entrypoint, "api");
}
END_TEST

START_TEST(log_formats_and_lock_timeout_are_checked)
{
    struct gen_config lcfg;
    ck_assert_int_eq(gen_config_load_string("t", NULL, "/d", &lcfg, err, sizeof err), 0);
    ck_assert(lcfg.lock_timeout == 900);
    ck_assert_str_eq(lcfg.lock_file, "/d/.arclamp-svg/run.lock");
    ck_assert_uint_eq(lcfg.nlog_formats, 6);
    ck_assert_str_eq(lcfg.log_formats[0], "%Y-%m-%d_%H.excimer");
    gen_config_free(&lcfg);
    ck_assert_int_eq(gen_config_load_string("t", "log_formats: ['%Y-%m-%d_%H-%M']\n"
                                            "lock_timeout: 2.5\n", "/d", &lcfg, err, sizeof err), 0);
    ck_assert_uint_eq(lcfg.nlog_formats, 1);
    ck_assert(lcfg.lock_timeout == 2.5);
    gen_config_free(&lcfg);
    const char *bad[] = {"log_formats: ['%Q']\n", "log_formats: []\n", "log_formats: 'x'\n",
                         "log_formats: ['a/%Y']\n", "lock_timeout: -1\n", "lock_timeout: 1e9\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(gen_config_load_string("t", bad[i], "/d", &lcfg, err, sizeof err) < 0, "%s",
                      bad[i]);
}
END_TEST

Suite *gen_config_suite(void)
{
    Suite *s = suite_create("gen_config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, defaults_without_any_file);
    tcase_add_test(tc, limits_are_read_and_bounded);
    tcase_add_test(tc, default_functions_are_the_production_list);
    tcase_add_test(tc, data_dir_moves_the_derived_paths);
    tcase_add_test(tc, data_dir_option_overrides_file_but_not_explicit_dirs);
    tcase_add_test(tc, keys_are_read);
    tcase_add_test(tc, empty_functions_list_disables_them);
    tcase_add_test(tc, unknown_key_is_refused_with_its_line);
    tcase_add_test(tc, bad_values_are_refused);
    tcase_add_test(tc, bad_functions_are_refused);
    tcase_add_test(tc, title_fills_placeholders_and_shows_time_with_spaces);
    tcase_add_test(tc, title_always_says_entry_point_and_samples);
    tcase_add_test(tc, title_of_reversed_and_function_graphs);
    tcase_add_test(tc, graph_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("logset");
    tcase_add_test(tc, hourly_name_gives_time_and_entry_point);
    tcase_add_test(tc, daily_name_gives_midnight);
    tcase_add_test(tc, name_without_valid_date_uses_mtime);
    tcase_add_test(tc, log_names_and_suffixes);
    tcase_add_test(tc, scan_orders_newest_first_and_prefers_plain_over_gz);
    tcase_add_test(tc, scan_of_missing_dir_is_empty);
    tcase_add_test(tc, tags_that_could_collide_are_refused);
    tcase_add_test(tc, true_all_logs_and_tags_are_read_with_the_formats);
    tcase_add_test(tc, log_formats_and_lock_timeout_are_checked);
    suite_add_tcase(s, tc);
    return s;
}
