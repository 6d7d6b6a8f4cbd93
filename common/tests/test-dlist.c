/* Tests of dlist: the intrusive list's order and its ends after unlinks. */
#include "dlist.h"
#include "test-suites.h"

struct item {
    int value;
    struct dlist_node node;
};

/* The values from head to tail into out; returns how many. */
static int values(const struct dlist *l, int *out)
{
    int n = 0;
    for (struct dlist_node *p = l->head; p; p = p->next)
        out[n++] = DLIST_ENTRY(p, struct item, node)->value;
    return n;
}

START_TEST(push_back_and_front_keep_their_order)
{
    struct item it[4] = {{1, {0}}, {2, {0}}, {3, {0}}, {4, {0}}};
    struct dlist l = {0};
    dlist_push_back(&l, &it[1].node);
    dlist_push_back(&l, &it[2].node);
    dlist_push_front(&l, &it[0].node);
    dlist_push_back(&l, &it[3].node);
    int v[4];
    ck_assert_int_eq(values(&l, v), 4);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(v[i], i + 1);
    ck_assert_ptr_eq(l.tail, &it[3].node);
    ck_assert_ptr_eq(l.tail->prev, &it[2].node);
}
END_TEST

START_TEST(unlink_at_head_middle_and_tail)
{
    struct item it[3] = {{1, {0}}, {2, {0}}, {3, {0}}};
    struct dlist l = {0};
    for (int i = 0; i < 3; i++)
        dlist_push_back(&l, &it[i].node);
    int v[3];
    dlist_unlink(&l, &it[1].node);
    ck_assert_int_eq(values(&l, v), 2);
    ck_assert_int_eq(v[0], 1);
    ck_assert_int_eq(v[1], 3);
    ck_assert_ptr_null(it[1].node.prev);
    ck_assert_ptr_null(it[1].node.next);
    dlist_unlink(&l, &it[0].node);
    ck_assert_ptr_eq(l.head, &it[2].node);
    ck_assert_ptr_eq(l.tail, &it[2].node);
    dlist_unlink(&l, &it[2].node);
    ck_assert_ptr_null(l.head);
    ck_assert_ptr_null(l.tail);
    dlist_push_front(&l, &it[1].node); /* an emptied list takes entries again */
    ck_assert_ptr_eq(l.head, l.tail);
}
END_TEST

Suite *dlist_suite(void)
{
    Suite *s = suite_create("dlist");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, push_back_and_front_keep_their_order);
    tcase_add_test(tc, unlink_at_head_middle_and_tail);
    suite_add_tcase(s, tc);
    return s;
}
