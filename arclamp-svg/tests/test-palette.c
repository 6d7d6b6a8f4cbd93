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
    tcase_add_test(tc, names_and_backgrounds);
    tcase_add_test(tc, differential_red_for_growth_blue_for_shrink);
    suite_add_tcase(s, tc);
    return s;
}
