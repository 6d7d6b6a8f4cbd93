/* Tests of flame: line parsing, aggregation, sorting and box layout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "strbuf.h"
#include "test-suites.h"

struct flame *flame_of(const char *const *lines)
{
    struct flame *f = flame_new();
    for (size_t i = 0; lines[i]; i++)
        flame_add_line(f, lines[i], strlen(lines[i]));
    flame_finish(f);
    return f;
}

/* The boxes of a layout, as "depth:name:start:total" lines in report order. */
struct boxes {
    const struct flame *f;
    strbuf text;
    size_t n;
    strbuf deltas;      /* "name:delta " of every box with a change */
};

static void collect_box(void *arg, const struct flame_box *b)
{
    struct boxes *bx = arg;
    size_t len = 3;
    const char *name = b->depth ? flame_frame_name(bx->f, b->frame, &len) : "all";
    strbuf_appendf(&bx->text, "%u:%.*s:%g:%g\n", b->depth, (int)len, name, b->start, b->total);
    bx->n++;
    if (b->delta != 0)
        strbuf_appendf(&bx->deltas, "%.*s:%g ", (int)len, name, b->delta);
}

static char *layout_of(const struct flame *f, enum flame_direction dir)
{
    struct boxes bx = {f, STRBUF_INIT, 0, STRBUF_INIT};
    flame_layout(f, dir, collect_box, &bx);
    char *s = xstrdup(strbuf_cstr(&bx.text));
    strbuf_free(&bx.text);
    strbuf_free(&bx.deltas);
    return s;
}

START_TEST(identical_stacks_are_summed)
{
    const char *lines[] = {"a;b 1", "a;b 2", "a;c 4", "a;b 1", NULL};
    struct flame *f = flame_of(lines);
    ck_assert_uint_eq(flame_lines(f), 4);
    ck_assert_uint_eq(flame_distinct_stacks(f), 2);
    ck_assert_uint_eq(flame_distinct_frames(f), 3);
    ck_assert_double_eq(flame_total(f), 8);
    char *boxes = layout_of(f, FLAME_FORWARD);
    ck_assert_str_eq(boxes, "2:b:0:4\n2:c:4:4\n1:a:0:8\n0:all:0:8\n");
    free(boxes);
    flame_free(f);
}
END_TEST

START_TEST(siblings_sorted_by_name_bytes)
{
    const char *lines[] = {"r;zeta 1", "r;Alpha 1", "r;alpha 1", "r;al 1", "r;\xC3\xA9 1", NULL};
    struct flame *f = flame_of(lines);
    char *boxes = layout_of(f, FLAME_FORWARD);
    ck_assert_str_eq(boxes, "2:Alpha:0:1\n2:al:1:1\n2:alpha:2:1\n2:zeta:3:1\n"
                            "2:\xC3\xA9:4:1\n1:r:0:5\n0:all:0:5\n");
    free(boxes);
    flame_free(f);
}
END_TEST

START_TEST(own_samples_left_of_children)
{
    /* As flamegraph.pl: "a;b 5" sorts before "a;b;c 3", so b's own samples
     * come first and c starts after them. */
    const char *lines[] = {"a;b;c 3", "a;b 5", NULL};
    struct flame *f = flame_of(lines);
    char *boxes = layout_of(f, FLAME_FORWARD);
    ck_assert_str_eq(boxes, "3:c:5:3\n2:b:0:8\n1:a:0:8\n0:all:0:8\n");
    free(boxes);
    flame_free(f);
}
END_TEST

START_TEST(reversed_layout_from_the_same_read)
{
    const char *lines[] = {"main;parse;strlen 3", "main;render;strlen 2", "main;parse 1", NULL};
    struct flame *f = flame_of(lines);
    char *rev = layout_of(f, FLAME_REVERSED);
    ck_assert_str_eq(rev, "2:main:0:1\n1:parse:0:1\n"
                          "3:main:1:3\n2:parse:1:3\n3:main:4:2\n2:render:4:2\n"
                          "1:strlen:1:5\n0:all:0:6\n");
    char *fwd = layout_of(f, FLAME_FORWARD);
    ck_assert_str_eq(fwd, "3:strlen:1:3\n2:parse:0:4\n3:strlen:4:2\n2:render:4:2\n"
                          "1:main:0:6\n0:all:0:6\n");
    ck_assert_uint_eq(flame_max_depth(f), 3);
    free(rev);
    free(fwd);
    flame_free(f);
}
END_TEST

START_TEST(lines_without_count_are_ignored)
{
    const char *lines[] = {"a;b", "a;b x", "a;b 1x", "a;b -1", "5", "", "a;b .5", "a;b 2", NULL};
    struct flame *f = flame_of(lines);
    ck_assert_uint_eq(flame_ignored(f), 7);
    ck_assert_uint_eq(flame_lines(f), 1);
    ck_assert_double_eq(flame_total(f), 2);
    flame_free(f);
}
END_TEST

START_TEST(fractional_counts_and_crlf)
{
    const char *lines[] = {"a 12.5", "a 0.25\r", "b\t3.", NULL};
    struct flame *f = flame_of(lines);
    ck_assert_uint_eq(flame_ignored(f), 0);
    ck_assert_double_eq(flame_total(f), 15.75);
    ck_assert_uint_eq(flame_distinct_stacks(f), 2);
    flame_free(f);
}
END_TEST

START_TEST(differential_lines_keep_both_columns)
{
    const char *lines[] = {"a;b 10 4", "a;c 0 6", NULL};
    struct flame *f = flame_of(lines);
    ck_assert(flame_is_differential(f));
    ck_assert_double_eq(flame_total(f), 10);    /* widths from the second column */
    struct boxes bx = {f, STRBUF_INIT, 0, STRBUF_INIT};
    flame_layout(f, FLAME_FORWARD, collect_box, &bx);
    ck_assert_str_eq(strbuf_cstr(&bx.text), "2:b:0:4\n2:c:4:6\n1:a:0:10\n0:all:0:10\n");
    /* only the leaves changed: a line's change is its leaf's, not its
     * ancestors' (flamegraph.pl's self change) */
    ck_assert_str_eq(strbuf_cstr(&bx.deltas), "b:-6 c:6 ");
    ck_assert_double_eq(flame_max_line_delta(f), 6);
    strbuf_free(&bx.text);
    strbuf_free(&bx.deltas);
    flame_free(f);
}
END_TEST

START_TEST(differential_change_is_the_sum_of_lines_ending_at_a_box)
{
    /* a's own line, a line ending at b twice (summed), one at the root;
     * the largest change is of one line (5), not of a box (b: 2 + 5) */
    const char *lines[] = {"a 1 2", "a;b 0 2", "a;b 5 10", "a;c 4 4", " 3 1", "x 7", NULL};
    struct flame *f = flame_of(lines);
    struct boxes bx = {f, STRBUF_INIT, 0, STRBUF_INIT};
    flame_layout(f, FLAME_FORWARD, collect_box, &bx);
    ck_assert_str_eq(strbuf_cstr(&bx.deltas), "b:7 a:1 all:-2 ");
    ck_assert_double_eq(flame_max_line_delta(f), 5);
    strbuf_reset(&bx.deltas);
    /* reversed, each line's change goes to its first frame */
    flame_layout(f, FLAME_REVERSED, collect_box, &bx);
    ck_assert_str_eq(strbuf_cstr(&bx.deltas), "a:1 a:7 all:-2 ");
    strbuf_free(&bx.text);
    strbuf_free(&bx.deltas);
    flame_free(f);
}
END_TEST

START_TEST(hostile_bytes_are_kept_as_frames)
{
    const char line[] = "<script>;a\0b;\xFF\xFE 1";
    struct flame *f = flame_new();
    ck_assert_int_eq(flame_add_line(f, line, sizeof(line) - 1), 0);
    flame_finish(f);
    ck_assert_uint_eq(flame_max_depth(f), 3);
    ck_assert_uint_eq(flame_distinct_frames(f), 3);
    size_t len;
    const char *n = flame_frame_name(f, 1, &len);   /* frames numbered in order of sight */
    ck_assert_uint_eq(len, 3);
    ck_assert_mem_eq(n, "a\0b", 3);
    flame_free(f);
}
END_TEST

START_TEST(deep_stack_without_recursion)
{
    /* 200,000 frames in one line: building, summing and sorting must not
     * recurse per frame. */
    size_t depth = 200000;
    char *line = malloc(depth * 2 + 8);
    size_t n = 0;
    for (size_t i = 0; i < depth; i++) {
        line[n++] = (char)('a' + i % 26);
        line[n++] = ';';
    }
    n--;
    memcpy(line + n, " 1", 2);
    struct flame *f = flame_new();
    ck_assert_int_eq(flame_add_line(f, line, n + 2), 0);
    flame_finish(f);
    ck_assert_uint_eq(flame_max_depth(f), depth);
    struct boxes bx = {f, STRBUF_INIT, 0, STRBUF_INIT};
    flame_layout(f, FLAME_REVERSED, collect_box, &bx);
    ck_assert_uint_eq(bx.n, depth + 1);
    strbuf_free(&bx.text);
    flame_free(f);
    free(line);
}
END_TEST

START_TEST(memory_grows_with_distinct_stacks_not_lines)
{
    struct flame *f = flame_new();
    const char line[] = "index.php;Foo::bar;Baz::qux;strlen 1";
    for (int i = 0; i < 1000; i++)
        flame_add_line(f, line, sizeof(line) - 1);
    size_t after_1k = flame_memory(f);
    for (int i = 0; i < 200000; i++)
        flame_add_line(f, line, sizeof(line) - 1);
    ck_assert_uint_eq(flame_memory(f), after_1k);
    flame_finish(f);
    ck_assert_double_eq(flame_total(f), 201000);
    flame_free(f);
}
END_TEST

START_TEST(flame_chart_keeps_input_order)
{
    /* Only adjacent lines share boxes: the two "a" runs stay apart, the two
     * adjacent "a;y" lines are one box, and "a" of the first line closes
     * when "b" comes. */
    const char *lines[] = {"m;a;x 1", "m;b 2", "m;a;y 1", "m;a;y 3", NULL};
    struct flame *f = flame_new();
    flame_keep_order(f);
    for (size_t i = 0; lines[i]; i++)
        flame_add_line(f, lines[i], strlen(lines[i]));
    flame_finish(f);
    char *boxes = layout_of(f, FLAME_FORWARD);
    ck_assert_str_eq(boxes, "3:x:0:1\n2:a:0:1\n2:b:1:2\n3:y:3:4\n2:a:3:4\n1:m:0:7\n0:all:0:7\n");
    free(boxes);
    boxes = layout_of(f, FLAME_REVERSED);
    ck_assert_str_eq(boxes, "3:m:0:1\n2:a:0:1\n1:x:0:1\n2:m:1:2\n1:b:1:2\n"
                            "3:m:3:4\n2:a:3:4\n1:y:3:4\n0:all:0:7\n");
    free(boxes);
    ck_assert_uint_eq(flame_distinct_stacks(f), 3);
    flame_free(f);
}
END_TEST

/* A limited flame fed `n` lines "root;sI;leaf COUNT" (I = 0..n-1). */
static struct flame *limited_of(const struct flame_limits *lim, size_t n, int count)
{
    struct flame *f = flame_new_limited(lim);
    for (size_t i = 0; i < n; i++) {
        char line[64];
        int len = snprintf(line, sizeof line, "root;s%zu;leaf %d", i, count);
        ck_assert_int_eq(flame_add_line(f, line, (size_t)len), 0);
    }
    return f;
}

START_TEST(stacks_beyond_max_stacks_go_to_one_truncated_frame)
{
    struct flame_limits lim = {.max_stacks = 3};
    struct flame *f = limited_of(&lim, 10, 2);
    /* a stack seen before the limit still counts as itself */
    ck_assert_int_eq(flame_add_line(f, "root;s1;leaf 5", 14), 0);
    flame_finish(f);
    size_t limit = 0;
    ck_assert_int_eq(flame_limit_reached(f, &limit), FLAME_LIMIT_STACKS);
    ck_assert_uint_eq(limit, 3);
    ck_assert_uint_eq(flame_distinct_stacks(f), 3);
    ck_assert_uint_eq(flame_truncated_lines(f), 7);
    ck_assert_double_eq(flame_truncated_samples(f), 14);
    ck_assert_double_eq(flame_total(f), 25);
    char *boxes = layout_of(f, FLAME_FORWARD);
    /* "[" sorts before "r": the truncated box comes first, at depth 1 */
    ck_assert_str_eq(boxes, "1:[truncated]:0:14\n"
                            "3:leaf:14:2\n2:s0:14:2\n3:leaf:16:7\n2:s1:16:7\n3:leaf:23:2\n"
                            "2:s2:23:2\n1:root:14:11\n0:all:0:25\n");
    free(boxes);
    flame_free(f);
}
END_TEST

START_TEST(frames_beyond_max_frames_go_to_truncated)
{
    struct flame_limits lim = {.max_frames = 4};   /* root, leaf, s0, s1 */
    struct flame *f = limited_of(&lim, 5, 1);
    ck_assert_int_eq(flame_limit_reached(f, NULL), FLAME_LIMIT_FRAMES);
    /* the [truncated] frame itself is the one kept in reserve */
    ck_assert_uint_eq(flame_distinct_frames(f), 5);
    ck_assert_uint_eq(flame_truncated_lines(f), 3);
    flame_free(f);
}
END_TEST

START_TEST(name_table_past_its_32bit_limit_is_refused_not_wrapped)
{
    /* max_offset stands in for UINT32_MAX: the name table may hold at most
     * 40 bytes. Names that would pass it are refused whole; every stored
     * name stays intact and the totals stay right. */
    struct flame_limits lim = {.max_offset = 40};
    struct flame *f = flame_new_limited(&lim);
    char line[64];
    for (int i = 0; i < 20; i++) {
        int n = snprintf(line, sizeof line, "name%02d;x 1", i);
        ck_assert_int_eq(flame_add_line(f, line, (size_t)n), 0);
    }
    size_t limit;
    ck_assert_int_eq(flame_limit_reached(f, &limit), FLAME_LIMIT_OFFSET);
    ck_assert_uint_eq(limit, 40);
    flame_finish(f);
    size_t stored = flame_distinct_frames(f), bytes = 0;
    ck_assert_uint_lt(stored, 20);
    for (uint32_t i = 0; i < stored; i++) {
        size_t len;
        const char *name = flame_frame_name(f, i, &len);
        bytes += len;
        if (i >= 2 && strncmp(name, "[truncated]", len) != 0) {
            char want[16];
            /* frame 0 is name00, 1 is x, then name01, name02, ... */
            snprintf(want, sizeof want, "name%02u", i - 1);
            ck_assert_uint_eq(len, 6);
            ck_assert_mem_eq(name, want, 6);
        }
    }
    ck_assert_uint_le(bytes, 40);
    ck_assert_double_eq(flame_total(f), 20);
    ck_assert_uint_eq(flame_truncated_lines(f) + flame_distinct_stacks(f), 20);
    flame_free(f);
}
END_TEST

START_TEST(memory_budget_bounds_unique_stacks)
{
    /* 200,000 unique stacks against 2 MiB: the tables never pass the
     * budget (and what flame_finish and the layout add is in it). */
    struct flame_budget budget = {2u << 20, 0};
    struct flame_limits lim = {.budget = &budget};
    struct flame *f = limited_of(&lim, 200000, 1);
    ck_assert_int_eq(flame_limit_reached(f, NULL), FLAME_LIMIT_MEMORY);
    ck_assert_uint_le(budget.used, budget.limit + 4096);
    ck_assert_uint_le(flame_memory(f), budget.limit + 4096);
    ck_assert_uint_gt(flame_distinct_stacks(f), 1000);   /* most of the budget was used */
    flame_finish(f);
    ck_assert_double_eq(flame_total(f), 200000);
    ck_assert_double_eq(flame_truncated_samples(f) + (double)flame_distinct_stacks(f), 200000);
    flame_free(f);
    ck_assert_uint_eq(budget.used, 0);
}
END_TEST

START_TEST(budget_is_shared_by_the_graphs_of_one_read)
{
    struct flame_budget budget = {1u << 20, 0};
    struct flame_limits lim = {.budget = &budget};
    struct flame *a = limited_of(&lim, 100000, 1), *b = limited_of(&lim, 100000, 1);
    ck_assert_uint_le(budget.used, budget.limit + 8192);
    ck_assert_uint_le(flame_memory(a) + flame_memory(b), budget.limit + 8192);
    ck_assert_int_eq(flame_limit_reached(b, NULL), FLAME_LIMIT_MEMORY);
    flame_free(a);
    flame_free(b);
    ck_assert_uint_eq(budget.used, 0);
}
END_TEST

START_TEST(deep_stack_pays_for_its_depth)
{
    /* One line of 2 million frames ("x;x;...", one distinct name): its depth
     * alone (what the layout would hold) is past a 16 MiB budget. */
    size_t depth = 2000000, n = 0;
    char *line = malloc(depth * 2 + 8);
    for (size_t i = 0; i < depth; i++) {
        line[n++] = 'x';
        line[n++] = ';';
    }
    memcpy(line + n - 1, " 3", 2);
    struct flame_budget budget = {16u << 20, 0};
    struct flame_limits lim = {.budget = &budget};
    struct flame *f = flame_new_limited(&lim);
    ck_assert_int_eq(flame_add_line(f, line, n + 1), 0);
    ck_assert_int_eq(flame_add_line(f, "a;b 1", 5), 0);
    flame_finish(f);
    ck_assert_int_eq(flame_limit_reached(f, NULL), FLAME_LIMIT_MEMORY);
    ck_assert_uint_eq(flame_max_depth(f), 2);
    ck_assert_double_eq(flame_truncated_samples(f), 3);
    ck_assert_double_eq(flame_total(f), 4);
    flame_free(f);
    free(line);
}
END_TEST

START_TEST(flame_chart_ends_with_truncated_once_full)
{
    struct flame_limits lim = {.max_stacks = 2};
    const char *lines[] = {"m;a 1", "m;b 2", "m;c 4", "m;a 8", NULL};
    struct flame *f = flame_new_limited(&lim);
    flame_keep_order(f);
    for (size_t i = 0; lines[i]; i++)
        flame_add_line(f, lines[i], strlen(lines[i]));
    flame_finish(f);
    char *boxes = layout_of(f, FLAME_FORWARD);
    /* once c found no room, the chart goes on as [truncated], "a" included */
    ck_assert_str_eq(boxes, "2:a:0:1\n2:b:1:2\n1:m:0:3\n1:[truncated]:3:12\n0:all:0:15\n");
    free(boxes);
    flame_free(f);
}
END_TEST

/* The names of the boxes of a chain graph read in direction `dir`. */
static char *chain_names(const char *line, enum flame_direction dir)
{
    struct flame *f = flame_new();
    flame_chain(f, dir);
    flame_add_line(f, line, strlen(line));
    flame_finish(f);
    char *s = layout_of(f, dir);
    flame_free(f);
    return s;
}

START_TEST(chain_marks_wakers_as_flamegraph_pl_rewrites_stacks)
{
    char *s = chain_names("t;--;w1;w2 5", FLAME_FORWARD);
    ck_assert_str_eq(s, "4:w2_[w]:0:5\n3:w1_[w]:0:5\n2:--:0:5\n1:t:0:5\n0:all:0:5\n");
    free(s);
    /* Perl's split: "--" right after a separator is a waker frame; a later
     * separator stays "--"; an empty part is marked too */
    s = chain_names("a;--;--;b;--;;--;c 1", FLAME_FORWARD);
    ck_assert_str_eq(s, "8:c_[w]:0:1\n7:--:0:1\n6:_[w]:0:1\n5:--:0:1\n4:b_[w]:0:1\n"
                        "3:--_[w]:0:1\n2:--:0:1\n1:a:0:1\n0:all:0:1\n");
    free(s);
    /* no separator (one at either end is none): nothing marked, and as
     * flamegraph.pl appends ";--;" after the first part, a "--" leaf */
    s = chain_names("--;a;-- 1", FLAME_FORWARD);
    ck_assert_str_eq(s, "4:--:0:1\n3:--:0:1\n2:a:0:1\n1:--:0:1\n0:all:0:1\n");
    free(s);
    s = chain_names("a;b 2", FLAME_REVERSED);
    ck_assert_str_eq(s, "3:--:0:2\n2:a:0:2\n1:b:0:2\n0:all:0:2\n");
    free(s);
    /* reversed: marked from the leaf, as flamegraph.pl reverses first */
    s = chain_names("t1;t2;--;w 3", FLAME_REVERSED);
    ck_assert_str_eq(s, "4:t1_[w]:0:3\n3:t2_[w]:0:3\n2:--:0:3\n1:w:0:3\n0:all:0:3\n");
    free(s);
}
END_TEST

/* flame_each_stack's report as "a;b 3|c 1|" (frames root first). */
struct stack_report {
    const struct flame *f;
    strbuf *out;
};

static void collect_stack(void *arg, const uint32_t *frames, uint32_t len, double count)
{
    struct stack_report *fo = arg;
    for (uint32_t i = 0; i < len; i++) {
        size_t n;
        const char *name = flame_frame_name(fo->f, frames[i], &n);
        if (i)
            strbuf_appendc(fo->out, ';');
        strbuf_append(fo->out, name, n);
    }
    strbuf_appendf(fo->out, " %g|", count);
}

START_TEST(each_distinct_stack_once_in_layout_order)
{
    struct flame *f = flame_new();
    ck_assert_int_eq(flame_add_stack(f, "m;b", 3, 2), 0);
    ck_assert_int_eq(flame_add_stack(f, "m", 1, 1), 0);
    ck_assert_int_eq(flame_add_stack(f, "m;a;z", 5, 4), 0);
    ck_assert_int_eq(flame_add_stack(f, "m;b", 3, 5), 0);
    ck_assert_int_eq(flame_add_line(f, "m;a 1", 5), 0);
    flame_finish(f);
    strbuf out = STRBUF_INIT;
    struct stack_report fo = {f, &out};
    flame_each_stack(f, collect_stack, &fo);
    ck_assert_str_eq(strbuf_cstr(&out), "m 1|m;a 1|m;a;z 4|m;b 7|");
    ck_assert(flame_total(f) == 13);
    strbuf_free(&out);
    flame_free(f);
}
END_TEST

START_TEST(a_stack_given_apart_from_its_count_keeps_numbers_in_frames)
{
    /* flame_add_line would read "retry 3 4" as a differential line */
    struct flame *f = flame_new();
    ck_assert_int_eq(flame_add_stack(f, "m;retry 3", 9, 4), 0);
    ck_assert_int_eq(flame_add_stack(f, "m", 1, 0), -1);
    ck_assert_uint_eq(flame_ignored(f), 1);
    ck_assert(!flame_is_differential(f));
    flame_finish(f);
    strbuf out = STRBUF_INIT;
    struct stack_report fo = {f, &out};
    flame_each_stack(f, collect_stack, &fo);
    ck_assert_str_eq(strbuf_cstr(&out), "m;retry 3 4|");
    strbuf_free(&out);
    flame_free(f);
}
END_TEST

Suite *flame_suite(void)
{
    Suite *s = suite_create("flame");
    TCase *tc = tcase_create("aggregate");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, identical_stacks_are_summed);
    tcase_add_test(tc, flame_chart_keeps_input_order);
    tcase_add_test(tc, siblings_sorted_by_name_bytes);
    tcase_add_test(tc, own_samples_left_of_children);
    tcase_add_test(tc, reversed_layout_from_the_same_read);
    tcase_add_test(tc, lines_without_count_are_ignored);
    tcase_add_test(tc, fractional_counts_and_crlf);
    tcase_add_test(tc, differential_lines_keep_both_columns);
    tcase_add_test(tc, differential_change_is_the_sum_of_lines_ending_at_a_box);
    tcase_add_test(tc, chain_marks_wakers_as_flamegraph_pl_rewrites_stacks);
    tcase_add_test(tc, each_distinct_stack_once_in_layout_order);
    tcase_add_test(tc, a_stack_given_apart_from_its_count_keeps_numbers_in_frames);
    tcase_add_test(tc, hostile_bytes_are_kept_as_frames);
    tcase_add_test(tc, deep_stack_without_recursion);
    tcase_add_test(tc, memory_grows_with_distinct_stacks_not_lines);
    tcase_add_test(tc, stacks_beyond_max_stacks_go_to_one_truncated_frame);
    tcase_add_test(tc, frames_beyond_max_frames_go_to_truncated);
    tcase_add_test(tc, name_table_past_its_32bit_limit_is_refused_not_wrapped);
    tcase_add_test(tc, memory_budget_bounds_unique_stacks);
    tcase_add_test(tc, budget_is_shared_by_the_graphs_of_one_read);
    tcase_add_test(tc, deep_stack_pays_for_its_depth);
    tcase_add_test(tc, flame_chart_ends_with_truncated_once_full);
    suite_add_tcase(s, tc);
    return s;
}
