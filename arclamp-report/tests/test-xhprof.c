/* Tests of xhprof.c against hand-computed numbers: xhprof_lib's flat
 * profile (inclusive, exclusive, totals, recursion names), diff,
 * weighted aggregation and prune. The run of every test:
 *   main()           ct 1  wt 100
 *   main()==>a       ct 2  wt 60
 *   a==>b            ct 4  wt 30
 *   main()==>b       ct 1  wt 10
 *   b==>b@1          ct 1  wt 5
 * so a: incl 60, excl 30; b: incl 40 (30 + 10), excl 35; b@1: 5; main():
 * excl 100 - 60 - 10 = 30; calls 1 + 2 + 5 + 1 = 9. */
#include <check.h>
#include <string.h>

#include "run.h"
#include "xhprof.h"
#include "test-suites.h"

static void put(run *r, const char *key, double ct, double wt)
{
    arc *a = run_arc(r, key, strlen(key), 1);
    a->v[M_CT] = ct;
    a->v[M_WT] = wt;
    a->present = (1u << M_CT) | (1u << M_WT);
}

static void sample_run(run *r, double main_wt, double a_wt, int with_main_b)
{
    run_init(r, 100);
    put(r, "main()", 1, main_wt);
    put(r, "main()==>a", 2, a_wt);
    put(r, "a==>b", 4, 30);
    if (with_main_b)
        put(r, "main()==>b", 1, 10);
    put(r, "b==>b@1", 1, 5);
    r->metrics = (1u << M_CT) | (1u << M_WT);
}

static const double *incl(flat *f, const char *name)
{
    arc *s = run_arc(&f->syms, name, strlen(name), 0);
    ck_assert_msg(s != NULL, "no function %s", name);
    return s->v;
}

static const double *excl(flat *f, const char *name)
{
    arc *s = run_arc(&f->syms, name, strlen(name), 0);
    ck_assert_msg(s != NULL, "no function %s", name);
    return f->excl[s - f->syms.arcs];
}

START_TEST(flat_profile_as_xhprof_lib)
{
    run r;
    flat f;
    sample_run(&r, 100, 60, 1);
    flat_compute(&r, &f);
    ck_assert_uint_eq(f.syms.n, 4);
    ck_assert_double_eq(incl(&f, "a")[M_WT], 60);
    ck_assert_double_eq(excl(&f, "a")[M_WT], 30);
    ck_assert_double_eq(incl(&f, "b")[M_WT], 40);
    ck_assert_double_eq(incl(&f, "b")[M_CT], 5);
    ck_assert_double_eq(excl(&f, "b")[M_WT], 35);
    ck_assert_double_eq(incl(&f, "b@1")[M_WT], 5);
    ck_assert_double_eq(excl(&f, "main()")[M_WT], 30);
    ck_assert_double_eq(f.totals[M_WT], 100);
    ck_assert_double_eq(f.totals[M_CT], 9);
    flat_free(&f);
    run_free(&r);
}
END_TEST

START_TEST(a_self_arc_is_refused_as_xhprof_lib_does)
{
    run r;
    flat f;
    sample_run(&r, 100, 60, 1);
    put(&r, "a==>a", 3, 7);
    flat_compute(&r, &f);
    ck_assert_uint_eq(f.self_arcs, 1);
    ck_assert_double_eq(incl(&f, "a")[M_CT], 2);
    ck_assert_double_eq(excl(&f, "a")[M_WT], 30);
    flat_free(&f);
    run_free(&r);
}
END_TEST

START_TEST(diff_is_b_minus_a_with_missing_arcs_as_zero)
{
    run a, b, d;
    sample_run(&a, 100, 60, 1);
    sample_run(&b, 150, 100, 0);
    run_init(&d, 100);
    run_add_weighted(&d, &b, 1.0);   /* as main.c's diff: B, then A weighted -1 */
    run_add_weighted(&d, &a, -1.0);
    ck_assert_double_eq(run_arc(&d, "main()", 6, 0)->v[M_WT], 50);
    ck_assert_double_eq(run_arc(&d, "main()==>a", 10, 0)->v[M_WT], 40);
    ck_assert_double_eq(run_arc(&d, "main()==>b", 10, 0)->v[M_WT], -10);
    ck_assert_double_eq(run_arc(&d, "main()==>b", 10, 0)->v[M_CT], -1);
    flat f;
    flat_compute(&d, &f);
    /* main(): 50 - (40 - 10) */
    ck_assert_double_eq(excl(&f, "main()")[M_WT], 20);
    flat_free(&f);
    run_free(&a);
    run_free(&b);
    run_free(&d);
}
END_TEST

START_TEST(aggregate_is_the_weighted_mean_or_the_sum)
{
    run a, b, s;
    sample_run(&a, 100, 60, 1);
    sample_run(&b, 150, 100, 0);
    run_init(&s, 100);
    run_add_weighted(&s, &a, 1);
    run_add_weighted(&s, &b, 3);
    ck_assert_double_eq(run_arc(&s, "main()", 6, 0)->v[M_WT], 100 + 3 * 150);
    run_scale(&s, 1.0 / 4);
    ck_assert_double_eq(run_arc(&s, "main()", 6, 0)->v[M_WT], (100 + 450) / 4.0);
    ck_assert_double_eq(run_arc(&s, "main()==>b", 10, 0)->v[M_WT], 10 / 4.0);
    run_free(&a);
    run_free(&b);
    run_free(&s);
}
END_TEST

START_TEST(prune_drops_small_children_and_reparents_under_pruned)
{
    run r, p;
    sample_run(&r, 100, 60, 1);
    /* a grandchild of b@1 big enough to stay: its parent b@1 (5) is pruned */
    put(&r, "b@1==>big", 1, 30);
    run_init(&p, 100);
    ck_assert_int_eq(run_prune(&r, 20, &p), 0);
    ck_assert_ptr_null(run_arc(&p, "b==>b@1", 7, 0));        /* b@1: 5 < 20 */
    ck_assert_ptr_nonnull(run_arc(&p, "a==>b", 5, 0));         /* b: 40 */
    ck_assert_ptr_null(run_arc(&p, "b@1==>big", 9, 0));
    arc *moved = run_arc(&p, "__pruned__()==>big", 18, 0);
    ck_assert_ptr_nonnull(moved);
    ck_assert_double_eq(moved->v[M_WT], 30);
    run_free(&r);
    run_free(&p);
}
END_TEST

START_TEST(arc_keys_split_at_the_first_arrow)
{
    run r;
    run_init(&r, 10);
    put(&r, "eval::f.php(3) : eval()'d code==>x", 1, 1);
    const char *p, *c;
    size_t pl, cl;
    arc_split(&r.arcs[0], &p, &pl, &c, &cl);
    ck_assert_uint_eq(pl, strlen("eval::f.php(3) : eval()'d code"));
    ck_assert_int_eq(strncmp(c, "x", cl), 0);
    put(&r, "main()", 1, 1);
    arc_split(&r.arcs[1], &p, &pl, &c, &cl);
    ck_assert_ptr_null(p);
    run_free(&r);
}
END_TEST

Suite *xhprof_suite(void)
{
    Suite *s = suite_create("xhprof");
    TCase *tc = tcase_create("xhprof");
    tcase_add_test(tc, flat_profile_as_xhprof_lib);
    tcase_add_test(tc, a_self_arc_is_refused_as_xhprof_lib_does);
    tcase_add_test(tc, diff_is_b_minus_a_with_missing_arcs_as_zero);
    tcase_add_test(tc, aggregate_is_the_weighted_mean_or_the_sum);
    tcase_add_test(tc, prune_drops_small_children_and_reparents_under_pruned);
    tcase_add_test(tc, arc_keys_split_at_the_first_arrow);
    suite_add_tcase(s, tc);
    return s;
}
