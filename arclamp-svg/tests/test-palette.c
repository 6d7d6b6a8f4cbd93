/* Tests of palette: stable colours within each palette's ranges. */
#include <stdio.h>
#include <string.h>

#include "palette.h"
#include "test-suites.h"

static struct rgb color_of(enum palette p, const char *name)
{
    return palette_color(p, name, strlen(name));
}

START_TEST(same_name_same_color_different_names_differ)
{
    struct rgb a = color_of(PALETTE_HOT, "MediaWiki::run"), b = color_of(PALETTE_HOT, "MediaWiki::run");
    ck_assert(a.r == b.r && a.g == b.g && a.b == b.b);
    int differ = 0;
    const char *names[] = {"a", "b", "c", "d", "e", "f"};
    struct rgb first = color_of(PALETTE_HOT, names[0]);
    for (int i = 1; i < 6; i++) {
        struct rgb c = color_of(PALETTE_HOT, names[i]);
        differ += c.r != first.r || c.g != first.g || c.b != first.b;
    }
    ck_assert_int_ge(differ, 4);
}
END_TEST

START_TEST(hot_and_blue_stay_in_their_ranges)
{
    char name[32];
    for (int i = 0; i < 2000; i++) {
        snprintf(name, sizeof(name), "fn%d", i);
        struct rgb h = color_of(PALETTE_HOT, name), b = color_of(PALETTE_BLUE, name);
        ck_assert(h.r >= 205 && h.r <= 254 && h.g <= 229 && h.b <= 54);
        ck_assert(b.r >= 80 && b.r <= 139 && b.g == b.r && b.b >= 205 && b.b <= 254);
    }
}
END_TEST

START_TEST(annotations_select_language_hues)
{
    struct rgb k = color_of(PALETTE_JAVA, "do_syscall_64_[k]");
    ck_assert(k.b == 0 && k.r >= 190);   /* orange */
    struct rgb cpp = color_of(PALETTE_PERL, "Foo::bar");
    ck_assert(cpp.r == cpp.g);           /* yellow */
}
END_TEST

static enum palette hue(enum palette p, const char *name)
{
    return palette_hue(p, name, strlen(name));
}

/* flamegraph.pl's rules, in its order: the first that matches wins. */
START_TEST(java_hues_as_flamegraph_pl)
{
    ck_assert_int_eq(hue(PALETTE_JAVA, "Interpreter_[j]"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_JAVA, "foo::bar_[i]"), PALETTE_AQUA);   /* before "::" */
    ck_assert_int_eq(hue(PALETTE_JAVA, "java/lang/Thread.run"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_JAVA, "Lorg/apache/Foo;::bar"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_JAVA, "io/netty/Channel.read"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_JAVA, "Lsun/misc/Unsafe.park"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_JAVA, "xjava/lang"), PALETTE_RED);      /* not at the start */
    ck_assert_int_eq(hue(PALETTE_JAVA, "LLjava/x"), PALETTE_RED);
    ck_assert_int_eq(hue(PALETTE_JAVA, "Foo:::bar"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_JAVA, "std::vector::push_back"), PALETTE_YELLOW);
    ck_assert_int_eq(hue(PALETTE_JAVA, "JVM::foo_[k]"), PALETTE_YELLOW);  /* "::" before kernel */
    ck_assert_int_eq(hue(PALETTE_JAVA, "do_syscall_64_[k]"), PALETTE_ORANGE);
    ck_assert_int_eq(hue(PALETTE_JAVA, "[libpthread-2.19.so]"), PALETTE_RED);
    ck_assert_int_eq(hue(PALETTE_JAVA, "pthread_cond_signal@@GLIBC_2.3.2"), PALETTE_RED);
    ck_assert_int_eq(hue(PALETTE_JAVA, "foo.isra.32"), PALETTE_RED);
    ck_assert_int_eq(hue(PALETTE_JAVA, "a/b"), PALETTE_RED);
}
END_TEST

START_TEST(perl_hues_as_flamegraph_pl)
{
    ck_assert_int_eq(hue(PALETTE_PERL, "Foo::bar"), PALETTE_YELLOW);
    ck_assert_int_eq(hue(PALETTE_PERL, "Perl_pp_entersub"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_PERL, "script.pl"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_PERL, "xpl"), PALETTE_RED);             /* a dot, literally */
    ck_assert_int_eq(hue(PALETTE_PERL, "sys_read_[k]"), PALETTE_ORANGE);
    ck_assert_int_eq(hue(PALETTE_PERL, "Perl_foo_[k]"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_PERL, "foo_[j]"), PALETTE_RED);         /* no JIT rule */
    ck_assert_int_eq(hue(PALETTE_PERL, "main"), PALETTE_RED);
}
END_TEST

START_TEST(js_hues_as_flamegraph_pl)
{
    ck_assert_int_eq(hue(PALETTE_JS, "LazyCompile:~foo /srv/app.js:3_[j]"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_JS, "Builtin:ArrayMap_[j]"), PALETTE_AQUA);
    ck_assert_int_eq(hue(PALETTE_JS, "v8::internal::Foo"), PALETTE_YELLOW);
    ck_assert_int_eq(hue(PALETTE_JS, "foo /srv/app.js"), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_JS, "x.js/y"), PALETTE_RED);            /* ".js" before the "/" */
    ck_assert_int_eq(hue(PALETTE_JS, "Builtin:foo"), PALETTE_AQUA);
    ck_assert_int_eq(hue(PALETTE_JS, " "), PALETTE_GREEN);
    ck_assert_int_eq(hue(PALETTE_JS, "  "), PALETTE_RED);
    ck_assert_int_eq(hue(PALETTE_JS, "sys_[k]_foo"), PALETTE_ORANGE);    /* anywhere */
    ck_assert_int_eq(hue(PALETTE_JS, "foo_[i]"), PALETTE_RED);
    ck_assert_int_eq(hue(PALETTE_JS, "node"), PALETTE_RED);
}
END_TEST

START_TEST(wakeup_and_chain_hues)
{
    ck_assert_int_eq(hue(PALETTE_WAKEUP, "schedule"), PALETTE_AQUA);
    ck_assert_int_eq(hue(PALETTE_CHAIN, "schedule"), PALETTE_BLUE);
    ck_assert_int_eq(hue(PALETTE_CHAIN, "try_to_wake_up_[w]"), PALETTE_AQUA);
    ck_assert_int_eq(hue(PALETTE_CHAIN, "a_[w]_[k]"), PALETTE_AQUA);      /* anywhere */
    ck_assert_int_eq(hue(PALETTE_HOT, "a_[w]"), PALETTE_HOT);
}
END_TEST

static void ck_rgb(struct rgb c, int r, int g, int b)
{
    ck_assert_msg(c.r == r && c.g == g && c.b == b, "rgb(%d,%d,%d), want rgb(%d,%d,%d)", c.r,
                  c.g, c.b, r, g, b);
}

START_TEST(formulas_as_flamegraph_pl)
{
    double v = 0.999999;
    ck_rgb(palette_formula(PALETTE_RED, v, 0, 0), 254, 129, 129);
    ck_rgb(palette_formula(PALETTE_GREEN, v, 0, 0), 109, 254, 109);
    ck_rgb(palette_formula(PALETTE_BLUE, v, 0, 0), 139, 139, 254);
    ck_rgb(palette_formula(PALETTE_YELLOW, v, 0, 0), 229, 229, 69);
    ck_rgb(palette_formula(PALETTE_PURPLE, v, 0, 0), 254, 139, 254);
    ck_rgb(palette_formula(PALETTE_AQUA, v, 0, 0), 109, 219, 219);
    ck_rgb(palette_formula(PALETTE_ORANGE, v, 0, 0), 254, 154, 0);
    ck_rgb(palette_formula(PALETTE_RED, 0, v, v), 200, 50, 50);
    /* the themes: which value goes where */
    ck_rgb(palette_formula(PALETTE_HOT, 0.5, 0, 0), 205, 115, 0);
    ck_rgb(palette_formula(PALETTE_HOT, 0, 0.5, 0), 205, 0, 27);
    ck_rgb(palette_formula(PALETTE_HOT, 0, 0, 0.5), 230, 0, 0);
    ck_rgb(palette_formula(PALETTE_MEM, 0.5, 0, 0), 0, 190, 105);
    ck_rgb(palette_formula(PALETTE_MEM, 0, 0.5, 0), 0, 215, 0);
    ck_rgb(palette_formula(PALETTE_IO, 0.5, 0, 0), 110, 110, 190);
    ck_rgb(palette_formula(PALETTE_IO, 0, 0.5, 0), 80, 80, 217);
}
END_TEST

START_TEST(names_and_backgrounds)
{
    ck_assert_int_eq(palette_from_name("blue"), PALETTE_BLUE);
    ck_assert_int_eq(palette_from_name("nope"), -1);
    ck_assert_str_eq(palette_name(PALETTE_AQUA), "aqua");
    ck_assert_int_eq(background_from_name("gray"), BG_GREY);
    const char *top, *bottom;
    background_stops(BG_AUTO, PALETTE_HOT, &top, &bottom);
    ck_assert_str_eq(bottom, "#eeeeb0");
    background_stops(BG_AUTO, PALETTE_BLUE, &top, &bottom);   /* flat: grey */
    ck_assert_str_eq(bottom, "#e8e8e8");
    background_stops(BG_AUTO, PALETTE_IO, &top, &bottom);
    ck_assert_str_eq(bottom, "#e0e0ff");
}
END_TEST

START_TEST(differential_red_for_growth_blue_for_shrink)
{
    struct rgb up = palette_diff_color(10, 10, 0), down = palette_diff_color(-5, 10, 0);
    ck_assert(up.r == 255 && up.g == 0 && up.b == 0);
    ck_assert(down.b == 255 && down.r == 105 && down.g == 105);
    struct rgb neg = palette_diff_color(10, 10, 1);
    ck_assert(neg.b == 255 && neg.r == 0);
    struct rgb same = palette_diff_color(0, 10, 0);
    ck_assert(same.r == 255 && same.g == 255 && same.b == 255);   /* white, as flamegraph.pl */
}
END_TEST

Suite *palette_suite(void)
{
    Suite *s = suite_create("palette");
    TCase *tc = tcase_create("colors");
    tcase_add_test(tc, same_name_same_color_different_names_differ);
    tcase_add_test(tc, hot_and_blue_stay_in_their_ranges);
    tcase_add_test(tc, annotations_select_language_hues);
    tcase_add_test(tc, java_hues_as_flamegraph_pl);
    tcase_add_test(tc, perl_hues_as_flamegraph_pl);
    tcase_add_test(tc, js_hues_as_flamegraph_pl);
    tcase_add_test(tc, wakeup_and_chain_hues);
    tcase_add_test(tc, formulas_as_flamegraph_pl);
    tcase_add_test(tc, names_and_backgrounds);
    tcase_add_test(tc, differential_red_for_growth_blue_for_shrink);
    suite_add_tcase(s, tc);
    return s;
}
