/* redis-count-subscriber: measures the Redis pub/sub ceiling for arclamp-log.
 *
 * SUBSCRIBEs to one channel and only counts the messages (no parsing, no
 * writing), so the rate it sees is what Redis itself can deliver to one
 * subscriber on this machine. It stops at the sentinel payload "__end__"
 * (sent by `redis-loadgen --sentinel`), after --idle seconds without a
 * message, after --timeout seconds in all, or when Redis drops it.
 *
 * It prints "subscribed" to stderr once the subscription is confirmed, and
 * one line on stdout at the end:
 *   received=600000 bytes=1020000000 seconds=3.002 rate=199866.8 cpu_us=1.21 end=sentinel
 * where seconds runs from the first to the last message counted and cpu_us
 * is this process's own CPU time (user + system) per message received: the
 * cost of just receiving through hiredis, a floor for any subscriber.
 */
#include <errno.h>
#include <getopt.h>
#include <hiredis/hiredis.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define EX_USAGE_CODE 64
#define SENTINEL "__end__"

struct options {
    const char *host;
    int port;
    const char *channel;
    double idle;     /* stop after this long without a message (once one came) */
    double timeout;  /* stop after this long in all */
};

struct tally {
    long received;
    long long bytes;
    double first, last;
    const char *end;   /* why counting stopped */
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Accounts for one reply; returns 1 when the sentinel arrived. */
static int handle_reply(const redisReply *r, struct tally *t)
{
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 3)
        return 0;
    const redisReply *kind = r->element[0], *payload = r->element[2];
    if (kind->type != REDIS_REPLY_STRING)
        return 0;
    if (strcmp(kind->str, "subscribe") == 0) {
        fprintf(stderr, "subscribed\n");
        return 0;
    }
    if (strcmp(kind->str, "message") != 0 || payload->type != REDIS_REPLY_STRING)
        return 0;
    if (payload->len == sizeof SENTINEL - 1 && memcmp(payload->str, SENTINEL, payload->len) == 0)
        return 1;
    double now = now_seconds();
    if (t->received++ == 0)
        t->first = now;
    t->last = now;
    t->bytes += (long long)payload->len;
    return 0;
}

/* Handles every complete reply already buffered; 1 = sentinel, -1 = error. */
static int drain_replies(redisContext *c, struct tally *t)
{
    for (;;) {
        void *reply = NULL;
        if (redisGetReplyFromReader(c, &reply) != REDIS_OK)
            return -1;
        if (!reply)
            return 0;
        int done = handle_reply(reply, t);
        freeReplyObject(reply);
        if (done)
            return 1;
    }
}

/* Waits up to 200 ms for data and reads it; -1 when the connection is gone. */
static int read_more(redisContext *c)
{
    struct pollfd pfd = {c->fd, POLLIN, 0};
    int n = poll(&pfd, 1, 200);
    if (n < 0)
        return errno == EINTR ? 0 : -1;
    if (n == 0)
        return 0;
    return redisBufferRead(c) == REDIS_OK ? 0 : -1;
}

static int timed_out(const struct options *o, const struct tally *t, double start)
{
    double now = now_seconds();
    if (now - start >= o->timeout)
        return 1;
    return t->received > 0 && now - t->last >= o->idle;
}

static void count_loop(redisContext *c, const struct options *o, struct tally *t)
{
    double start = now_seconds();
    for (;;) {
        int r = drain_replies(c, t);
        if (r == 1) {
            t->end = "sentinel";
            return;
        }
        if (r < 0 || read_more(c) < 0) {
            t->end = "disconnected";
            fprintf(stderr, "redis-count-subscriber: %s\n", c->errstr);
            return;
        }
        if (timed_out(o, t, start)) {
            t->end = t->received > 0 && now_seconds() - start < o->timeout ? "idle" : "timeout";
            return;
        }
    }
}

static void usage(FILE *out)
{
    fprintf(out, "usage: redis-count-subscriber [--host H] [--port P] [--channel C]\n"
                 "                              [--idle S] [--timeout S]\n"
                 "Counts messages on C until \"" SENTINEL "\", S idle seconds or the timeout.\n");
}

static int parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"host", required_argument, NULL, 'h'}, {"port", required_argument, NULL, 'p'},
        {"channel", required_argument, NULL, 'c'}, {"idle", required_argument, NULL, 'i'},
        {"timeout", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    *o = (struct options){"127.0.0.1", 6379, "excimer", 5, 600};
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h': o->host = optarg; break;
        case 'c': o->channel = optarg; break;
        case 'p': o->port = atoi(optarg); break;
        case 'i': o->idle = atof(optarg); break;
        case 't': o->timeout = atof(optarg); break;
        case 'H': usage(stdout); exit(0);
        default: return -1;
        }
    }
    if (optind != argc || o->port <= 0 || o->port > 65535 || o->idle <= 0 || o->timeout <= 0)
        return -1;
    return 0;
}

static redisContext *subscribe(const struct options *o)
{
    struct timeval tv = {2, 0};
    redisContext *c = redisConnectWithTimeout(o->host, o->port, tv);
    if (!c || c->err) {
        fprintf(stderr, "redis-count-subscriber: cannot connect to %s:%d: %s\n", o->host,
                o->port, c ? c->errstr : "out of memory");
        redisFree(c);
        return NULL;
    }
    int done = 0;
    if (redisAppendCommand(c, "SUBSCRIBE %s", o->channel) != REDIS_OK)
        return NULL;
    while (!done)
        if (redisBufferWrite(c, &done) != REDIS_OK)
            return NULL;
    return c;
}

/* CPU time (user + system) of this process so far, in microseconds. */
static double cpu_micros(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

int main(int argc, char **argv)
{
    struct options o;
    struct tally t = {0, 0, 0, 0, "none"};
    if (parse_args(argc, argv, &o) < 0) {
        usage(stderr);
        return EX_USAGE_CODE;
    }
    redisContext *c = subscribe(&o);
    if (!c)
        return 1;
    double cpu0 = cpu_micros();
    count_loop(c, &o, &t);
    double secs = t.last - t.first, cpu = cpu_micros() - cpu0;
    printf("received=%ld bytes=%lld seconds=%.3f rate=%.1f cpu_us=%.2f end=%s\n", t.received,
           t.bytes, secs, secs > 0 ? (double)(t.received - 1) / secs : 0.0,
           t.received > 0 ? cpu / (double)t.received : 0.0, t.end);
    redisFree(c);
    return 0;
}
