/* Tests of svg: layout arithmetic, pruning, label fitting, escaping of
 * options and names, determinism and golden files of small inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "strbuf.h"
#include "svg.h"
#include "test-suites.h"

/* Renders `lines` (NULL-terminated) in direction `dir` with `opt`; the
 * document is returned malloc'd. */
static char *render(const char *const *lines, enum flame_direction dir,
                    const struct svg_options *opt)
{
    struct flame *f = flame_new();
    for (size_t i = 0; lines[i]; i++)
        flame_add_line(f, lines[i], strlen(lines[i]));
    flame_finish(f);
    strbuf sb = STRBUF_INIT;
    svg_render(f, dir, opt, &sb);
    flame_free(f);
    char *doc = xstrdup(strbuf_cstr(&sb));
    strbuf_free(&sb);
    return doc;
}

/* The <g> of the box whose tooltip starts with `title` ("b (" ...). */
static const char *box(const char *doc, const char *title)
{
    char needle[256];
    snprintf(needle, sizeof(needle), "<g><title>%s", title);
    return strstr(doc, needle);
}

static double attr(const char *at, const char *name)
{
    char needle[64];
    snprintf(needle, sizeof(needle), " %s=\"", name);
    const char *p = strstr(at, needle);
    ck_assert_ptr_nonnull(p);
    return atof(p + strlen(needle));
}

static const char *const sample[] = {"a;b;c 3", "a;b;d 1", "a;e 4", NULL};

START_TEST(boxes_are_placed_like_flamegraph_pl)
{
    struct svg_options opt;
    svg_options_init(&opt);
    char *doc = render(sample, FLAME_FORWARD, &opt);
    /* depth 3: height = 4 * 16 + 36 + 34 = 134; width per sample 1180 / 8 */
    ck_assert_ptr_nonnull(strstr(doc, "width=\"1200\" height=\"134\""));
    const char *d = box(doc, "d (");
    ck_assert_ptr_nonnull(d);
    ck_assert_double_eq_tol(attr(d, "x"), 10 + 3 * 147.5, 0.05);
    ck_assert_double_eq_tol(attr(d, "width"), 147.5, 0.05);
    ck_assert_double_eq_tol(attr(d, "y"), 134 - 34 - 3 * 16 - 16 + 1, 0.05);
    ck_assert_double_eq_tol(attr(d, "height"), 15, 0.05);
    ck_assert_ptr_nonnull(strstr(doc, "<title>all (8 samples, 100%)</title>"));
    ck_assert_ptr_nonnull(strstr(doc, "<title>b (4 samples, 50.00%)</title>"));
    ck_assert_double_eq_tol(attr(box(doc, "e ("), "x"), 10 + 590, 0.05);
    free(doc);
}
END_TEST

START_TEST(inverted_grows_down_from_the_top)
{
    struct svg_options opt;
    svg_options_init(&opt);
    opt.inverted = 1;
    char *doc = render(sample, FLAME_FORWARD, &opt);
    ck_assert_double_eq_tol(attr(box(doc, "all ("), "y"), 36, 0.05);
    ck_assert_double_eq_tol(attr(box(doc, "c ("), "y"), 36 + 3 * 16, 0.05);
    ck_assert_ptr_nonnull(strstr(doc, ">Icicle Graph</text>"));
    free(doc);
}
END_TEST

START_TEST(narrow_boxes_and_their_children_are_dropped)
{
    const char *lines[] = {"big 9990", "tiny;child 10", NULL};
    struct svg_options opt;
    svg_options_init(&opt);
    opt.min_width = 2;   /* px: 10 samples are 1.18 px */
    char *doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_null(box(doc, "tiny ("));
    ck_assert_ptr_null(box(doc, "child ("));
    ck_assert_ptr_nonnull(strstr(doc, "height=\"102\""));   /* depth 1 only */
    free(doc);
    opt.min_width = 0.1;
    doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(box(doc, "child ("));
    free(doc);
    opt.min_width = 1, opt.min_width_is_percent = 1;   /* 1% of 10000 = 100 samples */
    doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_null(box(doc, "tiny ("));
    free(doc);
}
END_TEST

START_TEST(labels_fit_or_are_cut_with_dots)
{
    const char *lines[] = {"short 1", "a_rather_long_function_name_that_cannot_fit 1",
                           "xy 1000", NULL};
    struct svg_options opt;
    svg_options_init(&opt);
    opt.width = 1000 + 20;   /* 1 px per sample */
    char *doc = render(lines, FLAME_FORWARD, &opt);
    /* 1 px: fewer than 3 characters fit, no label */
    ck_assert_ptr_nonnull(strstr(box(doc, "short ("), "<text x=\"") );
    ck_assert_ptr_nonnull(strstr(box(doc, "short ("), "\"></text></g>"));
    free(doc);
    const char *wide[] = {"a_rather_long_function_name_that_cannot_fit 60", "other 940", NULL};
    doc = render(wide, FLAME_FORWARD, &opt);
    /* 60 px / (12 * 0.59) = 8.47: 8 characters, 6 of the name and ".." */
    ck_assert_ptr_nonnull(strstr(doc, ">a_rath..</text>"));
    free(doc);
}
END_TEST

START_TEST(labels_are_cut_in_bytes_as_flamegraph_pl_cuts_them)
{
    /* ten "é" (20 bytes), 60 px: int(60 / 7.08) = 8 bytes fit, the last two
     * of them become ".." */
    const char *lines[] = {"\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"
                           "\xC3\xA9\xC3\xA9 60", "other 940", NULL};
    struct svg_options opt;
    svg_options_init(&opt);
    opt.width = 1020;
    char *doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(strstr(doc, ">\xC3\xA9\xC3\xA9\xC3\xA9..</text>"));
    free(doc);
    /* 55 px: 7 bytes, 5 kept: a character cut in two is U+FFFD, never a
     * broken byte */
    const char *odd[] = {"\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9 55", "other 945", NULL};
    doc = render(odd, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(strstr(doc, ">\xC3\xA9\xC3\xA9\xEF\xBF\xBD..</text>"));
    free(doc);
}
END_TEST

START_TEST(widths_are_differences_of_rounded_edges)
{
    /* 1180 px in thirds: edges 10, 403.33, 796.67, 1190; written 10.0,
     * 403.3, 796.7: the middle box is 393.4 wide so the boxes tile */
    const char *lines[] = {"a 1", "b 1", "c 1", NULL};
    struct svg_options opt;
    svg_options_init(&opt);
    char *doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(strstr(box(doc, "a ("), "<rect x=\"10.0\" y=\"37.0\" width=\"393.3\""));
    ck_assert_ptr_nonnull(strstr(box(doc, "b ("), "<rect x=\"403.3\" y=\"37.0\" width=\"393.4\""));
    ck_assert_ptr_nonnull(strstr(box(doc, "c ("), "<rect x=\"796.7\" y=\"37.0\" width=\"393.3\""));
    ck_assert_ptr_nonnull(strstr(box(doc, "b ("), "<text x=\"406.33\""));
    free(doc);
    /* labels from the unrounded edges: 1180 / 3 / (12 * 0.59) = 55.6 fit */
    const char *names[] = {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1",
                           "b 1", "c 1", NULL};
    doc = render(names, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(strstr(doc, ">aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..</text>"));
    free(doc);
}
END_TEST

START_TEST(options_and_names_never_become_markup)
{
    const char *lines[] = {"<script>alert(1)</script>;x\"y 5", NULL};
    struct svg_options opt;
    svg_options_init(&opt);
    opt.title = "T</text><script>evil()</script>";
    opt.subtitle = "]]><x/>";
    opt.count_name = "s\"amples</title><a>";
    opt.name_type = "\"};evil();//";
    opt.font_type = "Verdana; } * { display:none";
    opt.notes = "<!-- -->";
    char *doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_null(strstr(doc, "<script>alert"));
    ck_assert_ptr_null(strstr(doc, "<script>evil"));
    ck_assert_ptr_null(strstr(doc, "<x/>"));
    ck_assert_ptr_null(strstr(doc, "<a>"));
    ck_assert_ptr_null(strstr(doc, "evil();"));
    ck_assert_ptr_null(strstr(doc, "} * {"));
    ck_assert_ptr_nonnull(strstr(doc, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    /* Two scripts of ours, one CDATA end each: nothing else closes one. */
    int cdata_ends = 0;
    for (const char *p = doc; (p = strstr(p, "]]>")); p++)
        cdata_ends++;
    ck_assert_int_eq(cdata_ends, 2);
    free(doc);
}
END_TEST

START_TEST(same_input_same_bytes)
{
    const char *a[] = {"x;y 1", "x;z 2", "w 3", "x;y 4", NULL};
    const char *b[] = {"w 3", "x;y 4", "x;z 2", "x;y 1", NULL};   /* other order */
    struct svg_options opt;
    svg_options_init(&opt);
    char *d1 = render(a, FLAME_FORWARD, &opt), *d2 = render(b, FLAME_FORWARD, &opt);
    ck_assert_str_eq(d1, d2);
    free(d1);
    free(d2);
}
END_TEST

START_TEST(differential_tooltips_and_colors)
{
    const char *lines[] = {"a;grew 1 9", "a;shrank 9 1", NULL};
    struct svg_options opt;
    svg_options_init(&opt);
    char *doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(strstr(doc, "<title>grew (9 samples, 90.00%; +80.00%)</title>"));
    ck_assert_ptr_nonnull(strstr(box(doc, "grew ("), "fill=\"rgb(255,0,0)\""));
    ck_assert_ptr_nonnull(strstr(box(doc, "shrank ("), "fill=\"rgb(0,0,255)\""));
    free(doc);
}
END_TEST

START_TEST(counts_get_thousands_separators_and_factor)
{
    const char *lines[] = {"f 1234567", NULL};
    struct svg_options opt;
    svg_options_init(&opt);
    char *doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(strstr(doc, "<title>f (1,234,567 samples, 100.00%)</title>"));
    free(doc);
    /* 617,283.5: printf's %.0f rounds a half to even */
    opt.factor = 0.5;
    opt.count_name = "ms";
    doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(strstr(doc, "<title>f (617,284 ms, 100.00%)</title>"));
    free(doc);
    /* commas at any size, never exponent notation */
    const char *big[] = {"f 1000000000000000", NULL};
    opt.factor = 1;
    doc = render(big, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(strstr(doc, "<title>f (1,000,000,000,000,000 ms, 100.00%)</title>"));
    free(doc);
}
END_TEST

START_TEST(percentages_are_of_the_rounded_count)
{
    /* with --factor 0.5: a is 0.5 -> "0" (half to even) -> 0.00%, b is 1 of
     * 1.5 -> 66.67%, c 2.5 -> "2" of 4 */
    const char *lines[] = {"a 1", "b 2", NULL};
    struct svg_options opt;
    svg_options_init(&opt);
    opt.factor = 0.5;
    opt.min_width = 0;
    char *doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(box(doc, "a (0 samples, 0.00%)</title>"));
    ck_assert_ptr_nonnull(box(doc, "b (1 samples, 66.67%)</title>"));
    ck_assert_ptr_nonnull(box(doc, "all (2 samples, 100%)</title>"));
    free(doc);
    const char *half[] = {"c 5", "d 3", NULL};
    doc = render(half, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(box(doc, "c (2 samples, 50.00%)</title>"));
    free(doc);
}
END_TEST

START_TEST(empty_input_gives_a_valid_message)
{
    const char *lines[] = {"no count here", NULL};
    struct svg_options opt;
    svg_options_init(&opt);
    char *doc = render(lines, FLAME_FORWARD, &opt);
    ck_assert_ptr_nonnull(strstr(doc, "ERROR: No valid input provided to flamegraph.pl."));
    ck_assert_ptr_nonnull(strstr(doc, "</svg>"));
    free(doc);
}
END_TEST

/* Golden files: tests/golden/NAME.collapsed rendered with default options
 * must give the boxes in NAME.frames (the <g id="frames"> element). */
static void check_golden(const char *name, enum flame_direction dir)
{
    char path[256];
    snprintf(path, sizeof(path), "arclamp-svg/tests/golden/%s.collapsed", name);
    size_t len;
    char *input = file_read(path, &len);
    ck_assert_msg(input != NULL, "missing %s (run from the repository root)", path);
    struct flame *f = flame_new();
    for (char *line = strtok(input, "\n"); line; line = strtok(NULL, "\n"))
        flame_add_line(f, line, strlen(line));
    flame_finish(f);
    struct svg_options opt;
    svg_options_init(&opt);
    strbuf sb = STRBUF_INIT;
    svg_render(f, dir, &opt, &sb);
    /* (the script's comments mention the element too: match the line) */
    const char *doc = strbuf_cstr(&sb), *frames = strstr(doc, "\n<g id=\"frames\">\n");
    ck_assert_ptr_nonnull(frames);
    frames++;
    snprintf(path, sizeof(path), "arclamp-svg/tests/golden/%s%s.frames", name,
             dir == FLAME_REVERSED ? ".reversed" : "");
    char *want = file_read(path, &len);
    ck_assert_msg(want != NULL, "missing %s", path);
    /* Reports the first line that differs (whole documents are too long for
     * Check's messages). */
    size_t at = 0, line = 1;
    while (frames[at] && frames[at] == want[at])
        line += frames[at++] == '\n';
    ck_assert_msg(frames[at] == want[at], "%s differs from the output at line %zu", path, line);
    free(want);
    strbuf_free(&sb);
    flame_free(f);
    free(input);
}

START_TEST(golden_php_request) { check_golden("php-request", FLAME_FORWARD); }
END_TEST
START_TEST(golden_php_request_reversed) { check_golden("php-request", FLAME_REVERSED); }
END_TEST

static const char *subtitle_of(const char *doc, char *buf, size_t n)
{
    const char *p = strstr(doc, "<text id=\"subtitle\"");
    if (!p)
        return NULL;
    p = strchr(p, '>') + 1;
    size_t len = (size_t)(strchr(p, '<') - p);
    snprintf(buf, n, "%.*s", (int)len, p);
    return buf;
}

START_TEST(truncation_is_said_in_the_subtitle)
{
    struct flame_limits lim = {.max_stacks = 2};
    struct flame *f = flame_new_limited(&lim);
    const char *lines[] = {"a;b 1", "a;c 1", "a;d 1000", "a;e 2", NULL};
    for (size_t i = 0; lines[i]; i++)
        flame_add_line(f, lines[i], strlen(lines[i]));
    flame_finish(f);
    struct svg_options opt;
    svg_options_init(&opt);
    opt.subtitle = "given";
    strbuf sb = STRBUF_INIT;
    svg_render(f, FLAME_FORWARD, &opt, &sb);
    char sub[512];
    ck_assert_ptr_nonnull(subtitle_of(sb.data, sub, sizeof sub));
    ck_assert_str_eq(sub, "given \xE2\x80\x94 1,002 samples in 2 lines beyond the limit of 2 "
                          "distinct stacks shown as [truncated]");
    ck_assert_ptr_nonnull(box(sb.data, "[truncated] (1,002 samples, 99.80%)"));
    ck_assert_ptr_nonnull(box(sb.data, "all (1,004 samples, 100%)"));
    strbuf_free(&sb);
    flame_free(f);
}
END_TEST

START_TEST(graph_within_the_limits_has_no_note)
{
    struct svg_options opt;
    svg_options_init(&opt);
    char *doc = render(sample, FLAME_FORWARD, &opt);
    ck_assert_ptr_null(strstr(doc, "id=\"subtitle\""));
    free(doc);
}
END_TEST

START_TEST(document_past_max_bytes_leaves_deep_boxes_out)
{
    /* 100 stacks 300 frames deep, every box wide enough: about 7 MB of
     * boxes against a limit of 1 MiB. */
    struct flame *f = flame_new();
    strbuf line = STRBUF_INIT;
    for (int s = 0; s < 100; s++) {
        strbuf_reset(&line);
        for (int d = 0; d < 300; d++)
            strbuf_appendf(&line, "%sframe_%d_%d", d ? ";" : "", s, d);
        strbuf_appends(&line, " 1");
        flame_add_line(f, line.data, line.len);
    }
    flame_finish(f);
    struct svg_options opt;
    svg_options_init(&opt);
    opt.min_width = 0;
    opt.max_bytes = 1u << 20;
    strbuf sb = STRBUF_INIT;
    svg_render(f, FLAME_FORWARD, &opt, &sb);
    ck_assert_uint_le(sb.len, opt.max_bytes);
    ck_assert_uint_gt(sb.len, opt.max_bytes / 2);
    char sub[512];
    ck_assert_ptr_nonnull(subtitle_of(sb.data, sub, sizeof sub));
    ck_assert_ptr_nonnull(strstr(sub, "boxes deeper than "));
    ck_assert_ptr_nonnull(strstr(sub, " frames left out (the graph would pass 1 MiB)"));
    ck_assert_ptr_nonnull(box(sb.data, "frame_0_0 "));
    ck_assert_ptr_null(box(sb.data, "frame_0_299 "));
    strbuf_free(&sb);
    /* without a limit, everything is there */
    opt.max_bytes = 0;
    svg_render(f, FLAME_FORWARD, &opt, &sb);
    ck_assert_uint_gt(sb.len, 4 * (1u << 20));
    ck_assert_ptr_nonnull(box(sb.data, "frame_0_299 "));
    strbuf_free(&sb);
    strbuf_free(&line);
    flame_free(f);
}
END_TEST

START_TEST(input_cut_is_said_in_the_subtitle)
{
    struct svg_options opt;
    svg_options_init(&opt);
    opt.input_cut_at = 1048576;
    char *doc = render(sample, FLAME_FORWARD, &opt);
    char sub[512];
    ck_assert_ptr_nonnull(subtitle_of(doc, sub, sizeof sub));
    ck_assert_str_eq(sub, "only the first 1,048,576 bytes of the input were read (the limit)");
    free(doc);
}
END_TEST

START_TEST(total_is_read_back_from_the_head)
{
    struct svg_options opt;
    svg_options_init(&opt);
    const char *const lines[] = {"a;b 1200", "a;c 34.5", NULL};
    char *doc = render(lines, FLAME_FORWARD, &opt);
    double total = -1;
    size_t head = (size_t)(strstr(doc, "]]></script>") - doc);
    ck_assert_int_eq(svg_head_total(doc, strlen(doc), &total), 0);
    ck_assert_double_eq(total, 1234.5);
    total = -1;
    ck_assert_int_eq(svg_head_total(doc, head, &total), 0);   /* the head is enough */
    /* cut inside the line, or no document of ours: no count */
    ck_assert_int_eq(svg_head_total(doc, head - 3, &total), -1);
    ck_assert_int_eq(svg_head_total(doc, 100, &total), -1);
    const char *other = "<svg>\nvar arclamp = {\"total\":5};\n</svg>";
    ck_assert_int_eq(svg_head_total(other, strlen(other), &total), -1);
    /* a graph an earlier arclamp-svg drew (its settings were a script)
     * keeps its count in the index */
    const char *older = "<svg><script><![CDATA[\nvar arclamp = {\"fontsize\":12,"
                        "\"countname\":\"samples\",\"total\":77};\n]]></script>";
    ck_assert_int_eq(svg_head_total(older, strlen(older), &total), 0);
    ck_assert_double_eq(total, 77);
    /* settings are data; no handler attribute, and nothing before
     * flamegraph.js in the script that runs (the web front allows the
     * file's bytes by their hash) */
    ck_assert_ptr_nonnull(strstr(doc, "<script type=\"application/json\" id=\"arclamp-settings\">"));
    ck_assert_ptr_nonnull(strstr(doc, "<script type=\"text/ecmascript\"><![CDATA[/* flamegraph.js"));
    ck_assert_ptr_null(strstr(doc, " onload="));
    free(doc);
    /* the empty graph says 0; a count name cannot fake the key (strings are
     * \u-escaped) */
    const char *const none[] = {NULL};
    opt.count_name = ",\"total\":99};";
    doc = render(none, FLAME_FORWARD, &opt);
    ck_assert_int_eq(svg_head_total(doc, strlen(doc), &total), 0);
    ck_assert_double_eq(total, 0);
    free(doc);
    doc = render(lines, FLAME_REVERSED, &opt);
    ck_assert_int_eq(svg_head_total(doc, strlen(doc), &total), 0);
    ck_assert_double_eq(total, 1234.5);
    free(doc);
}
END_TEST

Suite *svg_suite(void)
{
    Suite *s = suite_create("svg");
    TCase *tc = tcase_create("render");
    tcase_add_test(tc, boxes_are_placed_like_flamegraph_pl);
    tcase_add_test(tc, inverted_grows_down_from_the_top);
    tcase_add_test(tc, narrow_boxes_and_their_children_are_dropped);
    tcase_add_test(tc, labels_fit_or_are_cut_with_dots);
    tcase_add_test(tc, labels_are_cut_in_bytes_as_flamegraph_pl_cuts_them);
    tcase_add_test(tc, widths_are_differences_of_rounded_edges);
    tcase_add_test(tc, options_and_names_never_become_markup);
    tcase_add_test(tc, same_input_same_bytes);
    tcase_add_test(tc, differential_tooltips_and_colors);
    tcase_add_test(tc, counts_get_thousands_separators_and_factor);
    tcase_add_test(tc, percentages_are_of_the_rounded_count);
    tcase_add_test(tc, empty_input_gives_a_valid_message);
    tcase_add_test(tc, golden_php_request);
    tcase_add_test(tc, golden_php_request_reversed);
    tcase_add_test(tc, truncation_is_said_in_the_subtitle);
    tcase_add_test(tc, graph_within_the_limits_has_no_note);
    tcase_add_test(tc, document_past_max_bytes_leaves_deep_boxes_out);
    tcase_add_test(tc, input_cut_is_said_in_the_subtitle);
    tcase_add_test(tc, total_is_read_back_from_the_head);
    suite_add_tcase(s, tc);
    return s;
}
