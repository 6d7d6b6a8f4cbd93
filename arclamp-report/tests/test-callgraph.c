/* Tests of callgraph.c's critical path: its work is linear in the arcs
 * (each function's arcs out indexed once), where it used to search every
 * arc at each step (50,000 steps of a chain: 1.25 billion arcs looked at,
 * 260 s), and it still takes the heaviest arc out at each step. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "run.h"
#include "xhprof.h"
#include "test-suites.h"

static void put(run *r, const char *key, double wt)
{
    arc *a = run_arc(r, key, strlen(key), 1);
    a->v[M_CT] = 1;
    a->v[M_WT] = wt;
    a->present = (1u << M_CT) | (1u << M_WT);
}

/* main() -> f1 -> f2 -> ... -> f<n-1>: n arcs. */
static void chain(run *r, size_t n)
{
    char key[64];
    run_init(r, n + 1);
    put(r, "main()", (double)n);
    put(r, "main()==>f1", (double)n - 1);
    for (size_t i = 2; i < n; i++) {
        snprintf(key, sizeof key, "f%zu==>f%zu", i - 1, i);
        put(r, key, (double)(n - i));
    }
    r->metrics = (1u << M_CT) | (1u << M_WT);
}

START_TEST(critical_path_of_a_50000_arc_chain_looks_at_each_arc_once)
{
    run r;
    flat f;
    chain(&r, 50000);
    flat_compute(&r, &f);
    char *on_path = calloc(f.syms.n, 1), *arc_on = calloc(r.n, 1);
    size_t looked = callgraph_critical_path(&r, &f, on_path, arc_on);
    /* the chain's every arc but main()'s own is an arc out of a function */
    ck_assert_uint_eq(looked, r.n - 1);
    size_t on = 0;
    for (size_t i = 0; i < f.syms.n; i++)
        on += on_path[i];
    ck_assert_uint_eq(on, f.syms.n); /* the whole chain is the path */
    free(on_path);
    free(arc_on);
    flat_free(&f);
    run_free(&r);
}
END_TEST

START_TEST(critical_path_takes_the_heaviest_arc_out)
{
    run r;
    flat f;
    run_init(&r, 10);
    put(&r, "main()", 100);
    put(&r, "main()==>light", 10);
    put(&r, "main()==>heavy", 80);
    put(&r, "heavy==>x", 30);
    put(&r, "heavy==>y", 40);
    put(&r, "light==>z", 5);
    r.metrics = (1u << M_CT) | (1u << M_WT);
    flat_compute(&r, &f);
    char *on_path = calloc(f.syms.n, 1), *arc_on = calloc(r.n, 1);
    size_t looked = callgraph_critical_path(&r, &f, on_path, arc_on);
    ck_assert_uint_le(looked, r.n);
    const char *expect[] = {"main()", "heavy", "y"};
    size_t on = 0;
    for (size_t i = 0; i < f.syms.n; i++)
        on += on_path[i];
    ck_assert_uint_eq(on, 3);
    for (size_t i = 0; i < 3; i++) {
        arc *s = run_arc(&f.syms, expect[i], strlen(expect[i]), 0);
        ck_assert_ptr_nonnull(s);
        ck_assert_int_eq(on_path[s - f.syms.arcs], 1);
    }
    arc *best = run_arc(&r, "heavy==>y", 9, 0);
    ck_assert_int_eq(arc_on[best - r.arcs], 1);
    ck_assert_int_eq(arc_on[run_arc(&r, "heavy==>x", 9, 0) - r.arcs], 0);
    free(on_path);
    free(arc_on);
    flat_free(&f);
    run_free(&r);
}
END_TEST

Suite *callgraph_suite(void)
{
    Suite *s = suite_create("callgraph");
    TCase *tc = tcase_create("critical path");
    tcase_set_timeout(tc, 120); /* the chain under ASan; the count is what is tested */
    tcase_add_test(tc, critical_path_of_a_50000_arc_chain_looks_at_each_arc_once);
    tcase_add_test(tc, critical_path_takes_the_heaviest_arc_out);
    suite_add_tcase(s, tc);
    return s;
}
