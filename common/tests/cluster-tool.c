/* cluster-tool: a command-line driver of rediscluster's blocking client for
 * the live tests (test_cluster_live.py): runs commands for one key's slot
 * through cluster_client_run against a real Redis Cluster. Not installed.
 *
 *   cluster-tool [--deadline S] [--repeat N] [--wait-stdin 1] SEEDS KEY CMD ARGS...
 *                [';' CMD ARGS...]...
 *
 * SEEDS is "HOST:PORT[,HOST:PORT...]"; the commands go to KEY's slot, all
 * of them in one run (pipelined); --repeat runs them again with the same
 * client (its map and connections kept); with --wait-stdin, each run after
 * the first waits for a line on stdin (the test changes the cluster
 * meanwhile: the client's map is then stale). Prints one line per reply,
 * "reply I TYPE VALUE", then "stats: answered=A redirects=R map_fetches=M
 * slot=S err=NAME" and, on a failure, "error: ..." on stderr.
 * Exit: 0 every command answered, 1 not, 64 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "rediscluster.h"

static int usage(void)
{
    fprintf(stderr, "usage: cluster-tool [--deadline S] [--repeat N] [--wait-stdin 1] SEEDS KEY "
                    "CMD ARGS... [';' CMD ARGS...]...\n");
    return 64;
}

static void print_reply(void *arg, size_t index, redisReply *r)
{
    (void)arg;
    switch (r->type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
        printf("reply %zu %s %.*s\n", index,
               r->type == REDIS_REPLY_ERROR ? "error" : r->type == REDIS_REPLY_STATUS ? "status"
                                                                                       : "string",
               (int)r->len, r->str);
        break;
    case REDIS_REPLY_INTEGER:
        printf("reply %zu integer %lld\n", index, r->integer);
        break;
    case REDIS_REPLY_NIL:
        printf("reply %zu nil\n", index);
        break;
    default:
        printf("reply %zu array %zu\n", index, r->elements);
    }
}

/* Splits argv at ";" into commands (pointers into argv). */
static size_t split_commands(int argc, char **argv, struct cluster_command *cmds)
{
    size_t n = 0;
    int start = 0;
    for (int i = 0; i <= argc; i++) {
        if (i < argc && strcmp(argv[i], ";") != 0)
            continue;
        if (i > start) {
            cmds[n].argc = i - start;
            cmds[n].argv = (const char **)argv + start;
            cmds[n].argvlen = NULL;
            n++;
        }
        start = i + 1;
    }
    return n;
}

int main(int argc, char **argv)
{
    double budget = 30;
    long repeat = 1;
    int wait_stdin = 0, i = 1;
    for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
        if (!strcmp(argv[i], "--deadline"))
            budget = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--repeat"))
            repeat = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--wait-stdin"))
            wait_stdin = atoi(argv[i + 1]);
        else
            return usage();
    }
    if (argc - i < 3)
        return usage();
    struct cluster_node *seeds;
    size_t nseeds;
    char why[256];
    if (cluster_nodes_parse(argv[i], &seeds, &nseeds, why, sizeof why) < 0) {
        fprintf(stderr, "cluster-tool: seeds: %s\n", why);
        return 64;
    }
    unsigned slot = cluster_key_slot(argv[i + 1], strlen(argv[i + 1]));
    struct cluster_command *cmds = calloc((size_t)argc, sizeof *cmds);
    size_t n = split_commands(argc - i - 2, argv + i + 2, cmds);
    struct redisconn_options opt = {.client_name = "cluster-tool"};
    struct cluster_client cc;
    cluster_client_init(&cc, &opt, seeds, nseeds);
    free(seeds);
    int status = 0;
    for (long run = 0; run < repeat; run++) {
        char line[64];
        if (run > 0 && wait_stdin && !fgets(line, sizeof line, stdin))
            break;
        size_t answered = cluster_client_run(&cc, slot, cmds, n, clock_mono() + budget,
                                             print_reply, NULL);
        printf("stats: answered=%zu redirects=%lu map_fetches=%lu slot=%u err=%s\n", answered,
               cc.redirects, cc.map_fetches, slot, redisconn_error_name(cc.err));
        if (answered < n) {
            fprintf(stderr, "error: %s (reached=%d)\n", cc.errstr, cc.reached);
            status = 1;
        }
        fflush(stdout);
    }
    fflush(stdout);
    cluster_client_free(&cc);
    free(cmds);
    return status;
}
