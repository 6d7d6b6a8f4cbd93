/* Tests of hashidx: entries found by hash through collisions and growth,
 * sizes refused before they overflow. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "hashidx.h"
#include "test-suites.h"

/* The entries of a test: one key each, and the hash the index knows it by. */
struct table {
    struct hashidx idx;
    uint64_t *keys;
    uint64_t *hashes;
    size_t n;
};

static uint64_t hash_of(size_t i, void *ctx)
{
    const struct table *t = ctx;
    return t->hashes[i];
}

/* The index of key, or HASHIDX_NONE: the walk every caller writes. */
static size_t lookup(const struct table *t, uint64_t key, uint64_t hash)
{
    struct hashidx_walk w;
    for (size_t i = hashidx_find(&t->idx, hash, &w); i != HASHIDX_NONE; i = hashidx_next(&w)) {
        if (t->keys[i] == key)
            return i;
    }
    return HASHIDX_NONE;
}

static void add(struct table *t, uint64_t key, uint64_t hash, size_t first)
{
    ck_assert_int_eq(hashidx_reserve(&t->idx, t->n + 1, first, hash_of, t), 0);
    t->keys[t->n] = key;
    t->hashes[t->n] = hash;
    ck_assert_uint_eq(hashidx_insert(&t->idx, hash), t->n);
    t->n++;
}

static struct table table_new(size_t max)
{
    struct table t = {HASHIDX_INIT, calloc(max, sizeof(uint64_t)), calloc(max, sizeof(uint64_t)),
                      0};
    ck_assert_ptr_nonnull(t.keys);
    ck_assert_ptr_nonnull(t.hashes);
    return t;
}

static void table_free(struct table *t)
{
    hashidx_free(&t->idx);
    free(t->keys);
    free(t->hashes);
}

/* A simple mix, so the keys spread as a real hash spreads them. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

START_TEST(an_empty_index_finds_nothing_and_holds_no_memory)
{
    struct hashidx h = HASHIDX_INIT;
    struct hashidx_walk w;
    ck_assert_uint_eq(hashidx_find(&h, 0, &w), HASHIDX_NONE);
    ck_assert_uint_eq(hashidx_find(&h, UINT64_MAX, &w), HASHIDX_NONE);
    ck_assert_uint_eq(hashidx_longest_probe(&h), 0);
    ck_assert_ptr_null(h.slots);
    hashidx_clear(&h); /* nothing to clear: no slots touched */
    hashidx_free(&h);
    ck_assert_uint_eq(h.cap, 0);
}
END_TEST

/* One hash for every key: each probes past every key before it, and
 * each is still found, as is every key's absence. */
START_TEST(every_key_is_found_when_all_share_one_hash)
{
    struct table t = table_new(1000);
    for (uint64_t k = 0; k < 1000; k++)
        add(&t, k * 3, 42, 4);
    for (uint64_t k = 0; k < 1000; k++) {
        ck_assert_uint_eq(lookup(&t, k * 3, 42), k);
        ck_assert_uint_eq(lookup(&t, k * 3 + 1, 42), HASHIDX_NONE);
    }
    ck_assert_uint_eq(hashidx_longest_probe(&t.idx), 1000);
    table_free(&t);
}
END_TEST

START_TEST(growth_keeps_every_entry_findable)
{
    struct table t = table_new(100000);
    size_t caps_seen = 0, last_cap = 0;
    for (uint64_t k = 0; k < 100000; k++) {
        add(&t, k, mix(k), 64);
        if (t.idx.cap != last_cap) {
            last_cap = t.idx.cap;
            caps_seen++;
            for (uint64_t j = 0; j <= k; j++) /* right after each growth, all of them */
                ck_assert_uint_eq(lookup(&t, j, mix(j)), j);
        }
        ck_assert_uint_le(2 * t.idx.n, t.idx.cap); /* never more than half full */
    }
    ck_assert_uint_eq(t.idx.cap, 262144); /* 100000 entries: the first power of two >= 200000 */
    ck_assert_uint_ge(caps_seen, 12);     /* 64 .. 262144 */
    for (uint64_t k = 0; k < 100000; k++)
        ck_assert_uint_eq(lookup(&t, k, mix(k)), k);
    ck_assert_uint_eq(lookup(&t, 100000, mix(100000)), HASHIDX_NONE);
    table_free(&t);
}
END_TEST

START_TEST(first_size_is_rounded_up_and_kept_until_half_full)
{
    struct table t = table_new(64);
    ck_assert_int_eq(hashidx_reserve(&t.idx, 0, 100, hash_of, &t), 0);
    ck_assert_uint_eq(t.idx.cap, 128);
    for (uint64_t k = 0; k < 64; k++)
        add(&t, k, mix(k), 100);
    ck_assert_uint_eq(t.idx.cap, 128); /* 64 entries: exactly half */
    ck_assert_int_eq(hashidx_reserve(&t.idx, 65, 100, hash_of, &t), 0);
    ck_assert_uint_eq(t.idx.cap, 256);
    table_free(&t);
}
END_TEST

START_TEST(clear_forgets_entries_and_keeps_slots)
{
    struct table t = table_new(10);
    for (uint64_t k = 0; k < 10; k++)
        add(&t, k, mix(k), 64);
    hashidx_clear(&t.idx);
    t.n = 0;
    ck_assert_uint_eq(t.idx.cap, 64);
    for (uint64_t k = 0; k < 10; k++)
        ck_assert_uint_eq(lookup(&t, k, mix(k)), HASHIDX_NONE);
    add(&t, 7, mix(7), 64);
    ck_assert_uint_eq(lookup(&t, 7, mix(7)), 0);
    table_free(&t);
}
END_TEST

/* A count whose slots would pass 32-bit indexes or size_t is refused
 * before anything is allocated, and the index is left as it was. */
START_TEST(sizes_past_the_maximum_are_refused)
{
    struct table t = table_new(3);
    for (uint64_t k = 0; k < 3; k++)
        add(&t, k, mix(k), 8);
    const size_t too_many[] = {HASHIDX_MAX + 1, SIZE_MAX / 2 + 1, SIZE_MAX};
    for (size_t i = 0; i < sizeof too_many / sizeof *too_many; i++) {
        ck_assert_int_eq(hashidx_reserve(&t.idx, too_many[i], 8, hash_of, &t), -1);
        ck_assert_uint_eq(t.idx.cap, 8);
        ck_assert_uint_eq(t.idx.n, 3);
    }
    struct hashidx empty = HASHIDX_INIT;
    ck_assert_int_eq(hashidx_reserve(&empty, SIZE_MAX, SIZE_MAX, hash_of, NULL), -1);
    ck_assert_ptr_null(empty.slots);
    for (uint64_t k = 0; k < 3; k++)
        ck_assert_uint_eq(lookup(&t, k, mix(k)), k);
    ck_assert_uint_le(HASHIDX_MAX, (size_t)1 << 31); /* index + 1 fits a slot */
    table_free(&t);
}
END_TEST

/* Inserting without room reserved is a bug, caught at once. */
START_TEST(insert_without_room_aborts)
{
    struct hashidx h = HASHIDX_INIT;
    hashidx_insert(&h, 1);
}
END_TEST

Suite *hashidx_suite(void)
{
    Suite *s = suite_create("hashidx");
    TCase *tc = tcase_create("hashidx");
    tcase_add_test(tc, an_empty_index_finds_nothing_and_holds_no_memory);
    tcase_add_test(tc, every_key_is_found_when_all_share_one_hash);
    tcase_add_test(tc, growth_keeps_every_entry_findable);
    tcase_add_test(tc, first_size_is_rounded_up_and_kept_until_half_full);
    tcase_add_test(tc, clear_forgets_entries_and_keeps_slots);
    tcase_add_test(tc, sizes_past_the_maximum_are_refused);
    tcase_add_test_raise_signal(tc, insert_without_room_aborts, SIGABRT);
    suite_add_tcase(s, tc);
    return s;
}
