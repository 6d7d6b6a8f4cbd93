/* Tests of rediscluster's pure parts: key slots (the CRC vector and the
 * cluster specification's hash-tag examples), the slot map read from
 * CLUSTER SLOTS replies given as RESP bytes, hostile replies refused,
 * redirections and address lists. The client itself is tested against a
 * real cluster by test_cluster_live.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rediscluster.h"
#include "test-suites.h"

static char why[256];

/* The reply hiredis's own reader makes of `len` bytes of RESP. */
static redisReply *parse_resp_len(const char *resp, size_t len)
{
    redisReader *rd = redisReaderCreate();
    void *r = NULL;
    redisReaderFeed(rd, resp, len);
    ck_assert_int_eq(redisReaderGetReply(rd, &r), REDIS_OK);
    ck_assert_ptr_nonnull(r);
    redisReaderFree(rd);
    return r;
}

static redisReply *parse_resp(const char *resp)
{
    return parse_resp_len(resp, strlen(resp));
}

static unsigned slot_of(const char *key)
{
    return cluster_key_slot(key, strlen(key));
}

START_TEST(crc16_is_the_xmodem_variant)
{
    ck_assert_uint_eq(cluster_crc16("123456789", 9), 0x31C3);
    ck_assert_uint_eq(cluster_crc16("", 0), 0);
}
END_TEST

START_TEST(hash_tags_follow_the_cluster_specification)
{
    ck_assert_uint_eq(slot_of("{user1000}.following"), slot_of("{user1000}.followers"));
    ck_assert_uint_eq(slot_of("{user1000}.following"), slot_of("user1000"));
    ck_assert_uint_eq(slot_of("foo{}{bar}"), cluster_crc16("foo{}{bar}", 10) % 16384);
    ck_assert_uint_eq(slot_of("foo{{bar}}zap"), slot_of("{bar"));
    ck_assert_uint_eq(slot_of("foo{bar}{zap}"), slot_of("bar"));
    ck_assert_uint_eq(slot_of("foo{bar"), cluster_crc16("foo{bar", 7) % 16384);
    /* Values redis-server itself gives (CLUSTER KEYSLOT). */
    ck_assert_uint_eq(slot_of("foo"), 12182);
    ck_assert_uint_eq(slot_of("123456789"), 12739);
}
END_TEST

START_TEST(shard_keys_share_the_slot_of_their_tag)
{
    char key[32], tag[16];
    for (int n = 0; n < 16; n++) {
        snprintf(key, sizeof key, "excimer{%d}", n);
        snprintf(tag, sizeof tag, "%d", n);
        ck_assert_uint_eq(slot_of(key), slot_of(tag));
    }
    ck_assert_uint_ne(slot_of("excimer{0}"), slot_of("excimer{1}"));
}
END_TEST

/* Three masters, one with replicas; the third announces no host. */
static const char *THREE_MASTERS =
    "*3\r\n"
    "*4\r\n:0\r\n:5460\r\n*3\r\n$9\r\n127.0.0.1\r\n:7000\r\n$2\r\nid\r\n"
    "*3\r\n$9\r\n127.0.0.1\r\n:7003\r\n$2\r\nr1\r\n"
    "*3\r\n:5461\r\n:10922\r\n*2\r\n$9\r\n127.0.0.2\r\n:7001\r\n"
    "*3\r\n:10923\r\n:16383\r\n*2\r\n$0\r\n\r\n:7002\r\n";

START_TEST(map_reads_masters_of_cluster_slots)
{
    struct cluster_map m;
    cluster_map_init(&m);
    redisReply *r = parse_resp(THREE_MASTERS);
    ck_assert_int_eq(cluster_map_from_slots(&m, r, "seed.example", why, sizeof why), 0);
    freeReplyObject(r);
    ck_assert_uint_eq(m.nnodes, 3);
    ck_assert_uint_eq(m.covered, 16384);
    ck_assert_str_eq(cluster_map_owner(&m, 0)->port, "7000");
    ck_assert_str_eq(cluster_map_owner(&m, 5460)->host, "127.0.0.1");
    ck_assert_str_eq(cluster_map_owner(&m, 5461)->host, "127.0.0.2");
    ck_assert_str_eq(cluster_map_owner(&m, 16383)->host, "seed.example");
    ck_assert_str_eq(cluster_map_owner(&m, 16383)->port, "7002");
    ck_assert_ptr_null(cluster_map_owner(&m, 16384));
    cluster_map_free(&m);
}
END_TEST

START_TEST(map_move_updates_one_slot_and_adds_nodes)
{
    struct cluster_map m;
    cluster_map_init(&m);
    redisReply *r = parse_resp("*1\r\n*3\r\n:0\r\n:99\r\n*2\r\n$1\r\na\r\n:1\r\n");
    ck_assert_int_eq(cluster_map_from_slots(&m, r, "x", why, sizeof why), 0);
    freeReplyObject(r);
    ck_assert_uint_eq(m.covered, 100);
    ck_assert_ptr_null(cluster_map_owner(&m, 100));
    ck_assert_int_eq(cluster_map_move(&m, 100, "b", "2"), 0);
    ck_assert_int_eq(cluster_map_move(&m, 5, "b", "2"), 0);
    ck_assert_uint_eq(m.nnodes, 2);
    ck_assert_uint_eq(m.covered, 101);
    ck_assert_str_eq(cluster_map_owner(&m, 5)->host, "b");
    ck_assert_str_eq(cluster_map_owner(&m, 4)->host, "a");
    ck_assert_int_eq(cluster_map_move(&m, 16384, "b", "2"), -1);
    cluster_map_free(&m);
}
END_TEST

/* Each refused, and the map before it left as it was. */
START_TEST(map_refuses_hostile_shapes)
{
    const char *bad[] = {
        "+OK\r\n",
        "-ERR This instance has cluster support disabled\r\n",
        "*1\r\n:5\r\n",
        "*1\r\n*2\r\n:0\r\n:1\r\n",
        "*1\r\n*3\r\n$1\r\n0\r\n:1\r\n*2\r\n$1\r\na\r\n:1\r\n",
        "*1\r\n*3\r\n:0\r\n:16384\r\n*2\r\n$1\r\na\r\n:1\r\n",
        "*1\r\n*3\r\n:-1\r\n:3\r\n*2\r\n$1\r\na\r\n:1\r\n",
        "*1\r\n*3\r\n:9\r\n:3\r\n*2\r\n$1\r\na\r\n:1\r\n",
        "*1\r\n*3\r\n:0\r\n:3\r\n*1\r\n$1\r\na\r\n",
        "*1\r\n*3\r\n:0\r\n:3\r\n$1\r\na\r\n",
        "*1\r\n*3\r\n:0\r\n:3\r\n*2\r\n:1\r\n:1\r\n",
        "*1\r\n*3\r\n:0\r\n:3\r\n*2\r\n$1\r\na\r\n$4\r\n6379\r\n",
        "*1\r\n*3\r\n:0\r\n:3\r\n*2\r\n$1\r\na\r\n:0\r\n",
        "*1\r\n*3\r\n:0\r\n:3\r\n*2\r\n$1\r\na\r\n:65536\r\n",
        "*1\r\n*4\r\n:0\r\n:3\r\n*2\r\n$1\r\na\r\n:1\r\n:7\r\n",
        "*2\r\n*3\r\n:0\r\n:3\r\n*2\r\n$1\r\na\r\n:1\r\n*3\r\n:3\r\n:4\r\n*2\r\n$1\r\nb\r\n:1\r\n",
    };
    static const char nul_host[] = "*1\r\n*3\r\n:0\r\n:3\r\n*2\r\n$3\r\na\0b\r\n:1\r\n";
    struct cluster_map m;
    cluster_map_init(&m);
    redisReply *good = parse_resp(THREE_MASTERS);
    ck_assert_int_eq(cluster_map_from_slots(&m, good, "h", why, sizeof why), 0);
    freeReplyObject(good);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        redisReply *r = parse_resp(bad[i]);
        why[0] = '\0';
        ck_assert_msg(cluster_map_from_slots(&m, r, "h", why, sizeof why) == -1,
                      "accepted shape %zu", i);
        ck_assert_msg(why[0] != '\0', "no reason for shape %zu", i);
        freeReplyObject(r);
        ck_assert_uint_eq(m.nnodes, 3);
        ck_assert_uint_eq(m.covered, 16384);
        ck_assert_str_eq(cluster_map_owner(&m, 6000)->host, "127.0.0.2");
    }
    redisReply *r = parse_resp_len(nul_host, sizeof nul_host - 1);
    ck_assert_int_eq(cluster_map_from_slots(&m, r, "h", why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "NUL"));
    freeReplyObject(r);
    cluster_map_free(&m);
}
END_TEST

/* RESP of `nodes` one-slot ranges, each on its own master. */
static char *ranges_resp(int nodes)
{
    size_t cap = 64 + (size_t)nodes * 96, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "*%d\r\n", nodes);
    for (int i = 0; i < nodes; i++) {
        char host[16];
        int hl = snprintf(host, sizeof host, "h%d", i);
        len += (size_t)snprintf(s + len, cap - len, "*3\r\n:%d\r\n:%d\r\n*2\r\n$%d\r\n%s\r\n:1\r\n",
                                i, i, hl, host);
    }
    return s;
}

START_TEST(map_refuses_more_masters_than_the_limit)
{
    struct cluster_map m;
    cluster_map_init(&m);
    char *ok = ranges_resp(CLUSTER_MAX_NODES), *over = ranges_resp(CLUSTER_MAX_NODES + 1);
    redisReply *r = parse_resp(ok);
    ck_assert_int_eq(cluster_map_from_slots(&m, r, "h", why, sizeof why), 0);
    freeReplyObject(r);
    ck_assert_uint_eq(m.nnodes, CLUSTER_MAX_NODES);
    ck_assert_int_eq(cluster_map_move(&m, 9999, "new", "1"), -1);
    r = parse_resp(over);
    ck_assert_int_eq(cluster_map_from_slots(&m, r, "h", why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "more than 1024 masters"));
    freeReplyObject(r);
    ck_assert_uint_eq(m.nnodes, CLUSTER_MAX_NODES);
    free(ok);
    free(over);
    cluster_map_free(&m);
}
END_TEST

static enum cluster_redirect_kind redirect(const char *text, struct cluster_redirect *out)
{
    return cluster_redirect_parse(text, strlen(text), out);
}

START_TEST(redirects_are_read)
{
    struct cluster_redirect r;
    ck_assert_int_eq(redirect("MOVED 3999 127.0.0.1:6381", &r), CLUSTER_MOVED);
    ck_assert_uint_eq(r.slot, 3999);
    ck_assert_str_eq(r.to.host, "127.0.0.1");
    ck_assert_str_eq(r.to.port, "6381");
    ck_assert_int_eq(redirect("ASK 16383 redis-3.example:7000", &r), CLUSTER_ASK);
    ck_assert_uint_eq(r.slot, 16383);
    ck_assert_str_eq(r.to.host, "redis-3.example");
    /* Redis writes IPv6 without brackets, and ":PORT" when it does not
     * know its own address (the host is then the one asked). */
    ck_assert_int_eq(redirect("MOVED 0 ::1:7001", &r), CLUSTER_MOVED);
    ck_assert_str_eq(r.to.host, "::1");
    ck_assert_str_eq(r.to.port, "7001");
    ck_assert_int_eq(redirect("MOVED 1 [fe80::1]:7001", &r), CLUSTER_MOVED);
    ck_assert_str_eq(r.to.host, "fe80::1");
    ck_assert_int_eq(redirect("ASK 2 :7002", &r), CLUSTER_ASK);
    ck_assert_str_eq(r.to.host, "");
    ck_assert_str_eq(r.to.port, "7002");
}
END_TEST

START_TEST(malformed_redirects_are_not_followed)
{
    const char *bad[] = {"MOVED", "MOVED ", "MOVED 3999", "MOVED 3999 ", "MOVED x 1.2.3.4:1",
                         "MOVED 16384 h:1", "MOVED 123456 h:1", "MOVED -1 h:1",
                         "MOVED 1 h", "MOVED 1 h:0", "MOVED 1 h:99999", "MOVED 1 h:1 extra",
                         "MOVED  1 h:1", "MOVEDX 1 h:1", "ASK", "ASK 1", "ASKING 1 h:1",
                         "ERR unknown command", "CLUSTERDOWN The cluster is down",
                         "moved 1 h:1", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cluster_redirect r = {.kind = CLUSTER_ASK, .slot = 77};
        ck_assert_msg(redirect(bad[i], &r) == CLUSTER_NO_REDIRECT, "followed \"%s\"", bad[i]);
        ck_assert_uint_eq(r.slot, 77); /* *out untouched */
    }
}
END_TEST

START_TEST(errors_wanting_a_new_map)
{
    const char *yes[] = {"CLUSTERDOWN The cluster is down", "TRYAGAIN Multiple keys request",
                         "MOVED 1 h:1", "ASK 1 h:1", "CLUSTERDOWN"};
    const char *no[] = {"ERR wrong number of arguments", "CROSSSLOT Keys in request",
                        "WRONGTYPE Operation", "NOAUTH", "TRYAGAINX", "ASKING", ""};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        ck_assert_msg(cluster_error_wants_map(yes[i], strlen(yes[i])), "%s", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        ck_assert_msg(!cluster_error_wants_map(no[i], strlen(no[i])), "%s", no[i]);
}
END_TEST

START_TEST(node_lists_are_parsed)
{
    struct cluster_node *nodes = NULL;
    size_t n = 0;
    ck_assert_int_eq(cluster_nodes_parse("127.0.0.1:7000, [::1]:7001,redis.example:7002", &nodes,
                                         &n, why, sizeof why), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(nodes[0].host, "127.0.0.1");
    ck_assert_str_eq(nodes[0].port, "7000");
    ck_assert_str_eq(nodes[1].host, "::1");
    ck_assert_str_eq(nodes[2].host, "redis.example");
    ck_assert_str_eq(nodes[2].port, "7002");
    free(nodes);
}
END_TEST

START_TEST(node_list_errors_name_the_address)
{
    struct cluster_node *nodes = (void *)&why; /* must stay untouched */
    size_t n = 99;
    const char *bad[] = {"", "a:1,", ",a:1", "a:1,,b:2", "a:1,b", "a:1,b:0", "::1:7000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        ck_assert_msg(cluster_nodes_parse(bad[i], &nodes, &n, why, sizeof why) == -1,
                      "accepted \"%s\"", bad[i]);
        ck_assert_ptr_nonnull(strstr(why, "address "));
    }
    ck_assert_int_eq(cluster_nodes_parse("a:1,b", &nodes, &n, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "address 2 (\"b\")"));
    ck_assert_ptr_eq(nodes, (void *)&why);
    ck_assert_uint_eq(n, 99);
    /* A list longer than any cluster is refused before anything is read. */
    size_t len = (CLUSTER_MAX_NODES + 1) * 4;
    char *many = malloc(len + 1);
    for (size_t i = 0; i < len; i += 4)
        memcpy(many + i, "a:1,", 4);
    many[len - 1] = '\0';
    ck_assert_int_eq(cluster_nodes_parse(many, &nodes, &n, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "more than 1024 addresses"));
    free(many);
}
END_TEST

Suite *rediscluster_suite(void)
{
    Suite *s = suite_create("rediscluster");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, crc16_is_the_xmodem_variant);
    tcase_add_test(tc, hash_tags_follow_the_cluster_specification);
    tcase_add_test(tc, shard_keys_share_the_slot_of_their_tag);
    tcase_add_test(tc, map_reads_masters_of_cluster_slots);
    tcase_add_test(tc, map_move_updates_one_slot_and_adds_nodes);
    tcase_add_test(tc, map_refuses_hostile_shapes);
    tcase_add_test(tc, map_refuses_more_masters_than_the_limit);
    tcase_add_test(tc, redirects_are_read);
    tcase_add_test(tc, malformed_redirects_are_not_followed);
    tcase_add_test(tc, errors_wanting_a_new_map);
    tcase_add_test(tc, node_lists_are_parsed);
    tcase_add_test(tc, node_list_errors_name_the_address);
    suite_add_tcase(s, tc);
    return s;
}
