/* Tests of redisconn, the one Redis client, against a scripted server on
 * 127.0.0.1 (or a unix socket) in the test itself: the test accepts the
 * connection, writes what a server would answer and reads what the client
 * sent. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "redisconn.h"
#include "strbuf.h"
#include "test-suites.h"
#include "testutil.h"

struct srv {
    int listen_fd;
    int fd;                 /* the accepted connection */
    char port[8];
    char *dir, *path;       /* unix socket variant */
};

static void srv_start(struct srv *s)
{
    memset(s, 0, sizeof *s);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(s->listen_fd, 0);
    ck_assert_int_eq(bind(s->listen_fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(s->listen_fd, 8), 0);
    ck_assert_int_eq(getsockname(s->listen_fd, (struct sockaddr *)&a, &len), 0);
    snprintf(s->port, sizeof s->port, "%u", ntohs(a.sin_port));
    s->fd = -1;
}

static void srv_start_unix(struct srv *s)
{
    memset(s, 0, sizeof *s);
    s->dir = tmpdir_make();
    s->path = path_join(s->dir, "redis.sock");
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", s->path);
    s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_eq(bind(s->listen_fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(s->listen_fd, 8), 0);
    s->fd = -1;
}

static void srv_accept(struct srv *s)
{
    struct pollfd p = {s->listen_fd, POLLIN, 0};
    ck_assert_int_eq(poll(&p, 1, 5000), 1);
    s->fd = accept(s->listen_fd, NULL, NULL);
    ck_assert_int_ge(s->fd, 0);
}

static void srv_send(struct srv *s, const char *bytes, size_t n)
{
    while (n) {
        ssize_t w = write(s->fd, bytes, n);
        ck_assert_int_gt(w, 0);
        bytes += w;
        n -= (size_t)w;
    }
}

/* What the client sent, waiting up to `ms` for the first bytes. */
static char *srv_received(struct srv *s, int ms)
{
    strbuf in = STRBUF_INIT;
    char buf[65536];
    for (;;) {
        struct pollfd p = {s->fd, POLLIN, 0};
        if (poll(&p, 1, in.len ? 50 : ms) != 1)
            break;
        ssize_t n = read(s->fd, buf, sizeof buf);
        if (n <= 0)
            break;
        strbuf_append(&in, buf, (size_t)n);
    }
    char *text = xstrdup(strbuf_cstr(&in));
    strbuf_free(&in);
    return text;
}

static void srv_stop(struct srv *s)
{
    if (s->fd >= 0)
        close(s->fd);
    close(s->listen_fd);
    free(s->path);
    tmpdir_remove(s->dir);
}

/* Connects c to s (the server accepts); the connect() may still be under
 * way (redisconn_run finishes it). */
static void connect_to(redisconn *c, struct srv *s)
{
    ck_assert_int_eq(redisconn_connect(c), 0);
    srv_accept(s);
}

/* The same, and the connection open, as the daemon's loop would make it. */
static void open_to(redisconn *c, struct srv *s)
{
    connect_to(c, s);
    if (c->state == REDISCONN_CONNECTING) {
        struct pollfd p = {redisconn_fd(c), POLLOUT, 0};
        ck_assert_int_eq(poll(&p, 1, 5000), 1);
        ck_assert_int_eq(redisconn_connect_done(c), 1);
    }
    ck_assert_int_eq(c->state, REDISCONN_OPEN);
}

/* A server and a client for it: the test's pair. */
struct pair {
    struct srv s;
    redisconn c;
};

/* Starts the server (on a unix socket when `unix_socket`) and makes the
 * client with `extra`'s settings (NULL: the defaults) pointed at it. */
static void pair_start(struct pair *p, const struct redisconn_options *extra, int unix_socket)
{
    struct redisconn_options o;
    if (unix_socket)
        srv_start_unix(&p->s);
    else
        srv_start(&p->s);
    if (extra)
        o = *extra;
    else
        memset(&o, 0, sizeof o);
    if (unix_socket) {
        o.unix_path = p->s.path;
    } else {
        o.host = "127.0.0.1";
        o.port = p->s.port;
    }
    redisconn_init(&p->c, &o);
}

static void pair_stop(struct pair *p)
{
    redisconn_free(&p->c);
    srv_stop(&p->s);
}

/* redisconn_run fails with `err`, and errstr holds `words`. */
static void expect_failure(redisconn *c, double seconds, int err, const char *words)
{
    ck_assert_int_eq(redisconn_run(c, clock_mono() + seconds, NULL, NULL), -1);
    ck_assert_int_eq(c->err, err);
    ck_assert_int_eq(c->state, REDISCONN_CLOSED);
    ck_assert_msg(strstr(c->errstr, words), "errstr \"%s\" lacks \"%s\"", c->errstr, words);
}

struct got {
    int tags[2048];
    char text[2048][16];
    int n;
};

static void collect(void *arg, int tag, redisReply *r)
{
    struct got *g = arg;
    if (g->n < 2048) {
        g->tags[g->n] = tag;
        snprintf(g->text[g->n], sizeof g->text[0], "%s",
                 r->type == REDIS_REPLY_INTEGER ? "int" : r->str ? r->str : "?");
    }
    g->n++;
}

static void command1(redisconn *c, int tag, const char *a0)
{
    const char *argv[] = {a0};
    redisconn_command(c, tag, 1, argv, NULL);
}

START_TEST(handshake_goes_first_and_replies_pair_with_their_tags)
{
    struct pair p;
    struct redisconn_options o = {.username = "arclamp", .password = "s3cret", .db = 3,
                                  .client_name = "tier2"};
    pair_start(&p, &o, 0);
    command1(&p.c, 7, "PING"); /* queued before the connection exists */
    command1(&p.c, 8, "TIME");
    connect_to(&p.c, &p.s);
    srv_send(&p.s, "+OK\r\n+OK\r\n+OK\r\n+PONG\r\n+NOW\r\n", 28);
    struct got g = {.n = 0};
    ck_assert_int_eq(redisconn_run(&p.c, clock_mono() + 5, collect, &g), 0);
    ck_assert_int_eq(g.n, 2);
    ck_assert_int_eq(g.tags[0], 7);
    ck_assert_str_eq(g.text[0], "PONG");
    ck_assert_int_eq(g.tags[1], 8);
    ck_assert_str_eq(g.text[1], "NOW");
    char *sent = srv_received(&p.s, 1000);
    ck_assert_str_eq(sent, "*3\r\n$4\r\nAUTH\r\n$7\r\narclamp\r\n$6\r\ns3cret\r\n"
                           "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n"
                           "*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$5\r\ntier2\r\n"
                           "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nTIME\r\n");
    free(sent);
    pair_stop(&p);
}
END_TEST

START_TEST(a_refused_auth_closes_the_connection_with_its_cause)
{
    struct pair p;
    struct redisconn_options o = {.password = "wrong"};
    pair_start(&p, &o, 0);
    command1(&p.c, 1, "PING");
    connect_to(&p.c, &p.s);
    const char *no = "-WRONGPASS invalid username-password pair\r\n-NOAUTH Authentication required.\r\n";
    srv_send(&p.s, no, strlen(no));
    char want[128];
    snprintf(want, sizeof want, "127.0.0.1:%s: AUTH refused: WRONGPASS invalid username-password "
             "pair", p.s.port);
    expect_failure(&p.c, 5, REDISCONN_ERR_HANDSHAKE, want);
    ck_assert_str_eq(p.c.errstr, want);
    pair_stop(&p);
}
END_TEST

START_TEST(a_refused_select_names_the_database)
{
    struct pair p;
    struct redisconn_options o = {.db = 99};
    pair_start(&p, &o, 0);
    command1(&p.c, 1, "PING");
    connect_to(&p.c, &p.s);
    srv_send(&p.s, "-ERR DB index is out of range\r\n", 31);
    expect_failure(&p.c, 5, REDISCONN_ERR_HANDSHAKE,
                   "SELECT 99 refused: ERR DB index is out of range");
    pair_stop(&p);
}
END_TEST

/* The reader's own error text is copied before the reader is freed (it was
 * read after the free once: ASan's heap-use-after-free). */
START_TEST(an_unparseable_reply_is_a_protocol_error_with_the_parsers_words)
{
    struct pair p;
    pair_start(&p, NULL, 0);
    command1(&p.c, 1, "PING");
    connect_to(&p.c, &p.s);
    srv_send(&p.s, "!bogus\r\n", 8);
    expect_failure(&p.c, 5, REDISCONN_ERR_PROTOCOL, "Protocol error, got \"!\" as reply type byte");
    ck_assert_ptr_null(p.c.reader);
    pair_stop(&p);
}
END_TEST

START_TEST(a_reply_longer_than_the_limit_is_refused)
{
    struct pair p;
    struct redisconn_options o = {.max_reply_bytes = 65536};
    pair_start(&p, &o, 0);
    command1(&p.c, 1, "GET");
    connect_to(&p.c, &p.s);
    static char big[200000];
    memset(big, 'x', sizeof big);
    srv_send(&p.s, "$1000000\r\n", 10);
    srv_send(&p.s, big, sizeof big);
    expect_failure(&p.c, 5, REDISCONN_ERR_TOO_LARGE, "a reply is longer than 65536 bytes; refused");
    pair_stop(&p);
}
END_TEST

START_TEST(a_huge_array_header_is_refused_before_anything_is_allocated)
{
    struct pair p;
    struct redisconn_options o = {.max_reply_bytes = 1 << 20};
    pair_start(&p, &o, 0);
    command1(&p.c, 1, "LRANGE");
    connect_to(&p.c, &p.s);
    srv_send(&p.s, "*2147483647\r\n:1\r\n", 17);
    expect_failure(&p.c, 5, REDISCONN_ERR_TOO_LARGE, "announced 2147483647 elements");
    pair_stop(&p);
}
END_TEST

START_TEST(a_reply_nobody_asked_for_is_refused_unless_pushes_are_allowed)
{
    for (int allow = 0; allow < 2; allow++) {
        struct pair p;
        struct redisconn_options o = {.allow_push = allow};
        pair_start(&p, &o, 0);
        open_to(&p.c, &p.s);
        srv_send(&p.s, "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$3\r\nabc\r\n", 34);
        struct pollfd pfd = {redisconn_fd(&p.c), POLLIN, 0};
        ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
        ck_assert_int_gt(redisconn_read(&p.c), 0);
        redisReply *r = NULL;
        int tag = 0;
        int rc = redisconn_reply(&p.c, &r, &tag);
        if (allow) {
            ck_assert_int_eq(rc, 1);
            ck_assert_int_eq(tag, REDISCONN_PUSH);
            ck_assert_str_eq(r->element[2]->str, "abc");
            freeReplyObject(r);
        } else {
            ck_assert_int_eq(rc, -1);
            ck_assert_int_eq(p.c.err, REDISCONN_ERR_PROTOCOL);
            ck_assert_ptr_nonnull(strstr(p.c.errstr, "no command asked for"));
        }
        pair_stop(&p);
    }
}
END_TEST

START_TEST(a_thousand_pipelined_replies_keep_their_order)
{
    struct pair p;
    pair_start(&p, NULL, 0);
    connect_to(&p.c, &p.s);
    strbuf replies = STRBUF_INIT;
    for (int i = 0; i < 1000; i++) {
        command1(&p.c, i, "PING");
        strbuf_appendf(&replies, "+r%d\r\n", i);
    }
    srv_send(&p.s, replies.data, replies.len);
    struct got *g = calloc(1, sizeof *g);
    ck_assert_int_eq(redisconn_run(&p.c, clock_mono() + 5, collect, g), 0);
    ck_assert_int_eq(g->n, 1000);
    for (int i = 0; i < 1000; i++) {
        char want[16];
        snprintf(want, sizeof want, "r%d", i);
        ck_assert_int_eq(g->tags[i], i);
        ck_assert_str_eq(g->text[i], want);
    }
    free(g);
    strbuf_free(&replies);
    pair_stop(&p);
}
END_TEST

START_TEST(a_reply_arriving_one_byte_at_a_time_is_parsed)
{
    struct pair p;
    pair_start(&p, NULL, 0);
    open_to(&p.c, &p.s);
    command1(&p.c, 4, "PING");
    ck_assert_int_eq(redisconn_write(&p.c), 0);
    const char *reply = "$5\r\nhello\r\n";
    redisReply *r = NULL;
    int tag = -9;
    for (size_t i = 0; reply[i]; i++) {
        srv_send(&p.s, reply + i, 1);
        struct pollfd pfd = {redisconn_fd(&p.c), POLLIN, 0};
        ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
        ck_assert_int_eq(redisconn_read(&p.c), 1);
        ck_assert_int_eq(redisconn_reply(&p.c, &r, &tag), reply[i + 1] ? 0 : 1);
    }
    ck_assert_int_eq(tag, 4);
    ck_assert_str_eq(r->str, "hello");
    freeReplyObject(r);
    pair_stop(&p);
}
END_TEST

START_TEST(a_server_closing_before_answering_is_an_io_error)
{
    struct pair p;
    pair_start(&p, NULL, 0);
    command1(&p.c, 1, "PING");
    connect_to(&p.c, &p.s);
    srv_send(&p.s, "*3\r\n$9\r\nsubscribe", 17); /* half a reply, then gone */
    close(p.s.fd);
    p.s.fd = -1;
    expect_failure(&p.c, 5, REDISCONN_ERR_IO, "the server closed the connection before answering");
    pair_stop(&p);
}
END_TEST

START_TEST(a_silent_server_runs_into_the_deadline)
{
    struct pair p;
    pair_start(&p, NULL, 0);
    command1(&p.c, 1, "PING");
    connect_to(&p.c, &p.s);
    double t0 = clock_mono();
    expect_failure(&p.c, 0.2, REDISCONN_ERR_TIMEOUT, "timed out waiting for replies");
    double took = clock_mono() - t0;
    ck_assert_msg(took >= 0.19 && took < 2, "took %.3fs", took);
    pair_stop(&p);
}
END_TEST

START_TEST(a_refused_connection_names_the_address)
{
    struct pair p;
    pair_start(&p, NULL, 0);
    close(p.s.listen_fd); /* the port is free again: nothing listens */
    p.s.listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    command1(&p.c, 1, "PING");
    char want[96];
    snprintf(want, sizeof want, "127.0.0.1:%s: Connection refused", p.s.port);
    expect_failure(&p.c, 5, REDISCONN_ERR_CONNECT, want);
    ck_assert_str_eq(p.c.errstr, want);
    ck_assert_int_eq(p.c.reached, 0);
    pair_stop(&p);
}
END_TEST

START_TEST(unix_sockets_work_like_tcp)
{
    struct pair p;
    pair_start(&p, NULL, 1);
    command1(&p.c, 2, "PING");
    connect_to(&p.c, &p.s);
    srv_send(&p.s, "+PONG\r\n", 7);
    struct got g = {.n = 0};
    ck_assert_int_eq(redisconn_run(&p.c, clock_mono() + 5, collect, &g), 0);
    ck_assert_int_eq(g.n, 1);
    ck_assert_str_eq(g.text[0], "PONG");
    ck_assert_ptr_nonnull(strstr(p.c.peer, "unix:"));
    pair_stop(&p);
}
END_TEST

/* After fork() the child must never write to, or read from, the parent's
 * connection: both would then read each other's replies. */
START_TEST(a_forked_child_drops_the_parents_connection_without_a_byte)
{
    struct pair p;
    pair_start(&p, NULL, 0);
    connect_to(&p.c, &p.s);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int inherited = redisconn_inherited(&p.c);
        command1(&p.c, 1, "PING"); /* queued on a fresh, closed connection */
        redisconn_write(&p.c);
        _exit(inherited && p.c.state == REDISCONN_CLOSED && p.c.fd == -1 ? 0 : 1);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char byte;
    ck_assert_int_eq(recv(p.s.fd, &byte, 1, MSG_DONTWAIT), -1); /* nothing from the child */
    ck_assert_int_eq(errno, EAGAIN);
    /* The parent's connection is intact. */
    ck_assert_int_eq(redisconn_inherited(&p.c), 0);
    command1(&p.c, 3, "PING");
    srv_send(&p.s, "+PONG\r\n", 7);
    struct got g = {.n = 0};
    ck_assert_int_eq(redisconn_run(&p.c, clock_mono() + 5, collect, &g), 0);
    ck_assert_int_eq(g.n, 1);
    pair_stop(&p);
}
END_TEST

START_TEST(an_idle_connection_the_server_closed_is_dropped_quietly)
{
    struct pair p;
    pair_start(&p, NULL, 0);
    open_to(&p.c, &p.s);
    ck_assert_int_eq(redisconn_check_idle(&p.c), 0);
    ck_assert_int_eq(p.c.state, REDISCONN_OPEN); /* nothing happened: kept */
    close(p.s.fd);
    p.s.fd = -1;
    usleep(20000);
    ck_assert_int_eq(redisconn_check_idle(&p.c), 0);
    ck_assert_int_eq(p.c.state, REDISCONN_CLOSED);
    ck_assert_int_eq(p.c.err, REDISCONN_OK);
    pair_stop(&p);
}
END_TEST

Suite *redisconn_suite(void)
{
    Suite *s = suite_create("redisconn");
    TCase *tc = tcase_create("protocol");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, handshake_goes_first_and_replies_pair_with_their_tags);
    tcase_add_test(tc, a_refused_auth_closes_the_connection_with_its_cause);
    tcase_add_test(tc, a_refused_select_names_the_database);
    tcase_add_test(tc, an_unparseable_reply_is_a_protocol_error_with_the_parsers_words);
    tcase_add_test(tc, a_reply_longer_than_the_limit_is_refused);
    tcase_add_test(tc, a_huge_array_header_is_refused_before_anything_is_allocated);
    tcase_add_test(tc, a_reply_nobody_asked_for_is_refused_unless_pushes_are_allowed);
    tcase_add_test(tc, a_thousand_pipelined_replies_keep_their_order);
    tcase_add_test(tc, a_reply_arriving_one_byte_at_a_time_is_parsed);
    suite_add_tcase(s, tc);
    tc = tcase_create("connection");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, a_server_closing_before_answering_is_an_io_error);
    tcase_add_test(tc, a_silent_server_runs_into_the_deadline);
    tcase_add_test(tc, a_refused_connection_names_the_address);
    tcase_add_test(tc, unix_sockets_work_like_tcp);
    tcase_add_test(tc, a_forked_child_drops_the_parents_connection_without_a_byte);
    tcase_add_test(tc, an_idle_connection_the_server_closed_is_dropped_quietly);
    suite_add_tcase(s, tc);
    return s;
}
