/* rediscluster: what Arc Lamp knows of Redis Cluster, on top of the one
 * connection (redisconn.h).
 *
 * - The slot of a key: CRC16 (the XMODEM variant the cluster uses) of the
 *   key, or of its hash tag — the bytes between the first '{' and the
 *   first '}' after it, when there are any — modulo 16384. Arc Lamp's
 *   shard keys are NAME{N}: every channel of shard N is in one slot, so
 *   one command may name them all (the cluster refuses keys of several
 *   slots in one command: CROSSSLOT).
 * - The slot map: which master serves each slot, read from a reply to
 *   CLUSTER SLOTS. Only masters: Arc Lamp writes and reads with consumer
 *   groups, which replicas cannot serve.
 * - Redirections: "MOVED SLOT HOST:PORT" (the slot lives there now: the
 *   map is stale) and "ASK SLOT HOST:PORT" (the slot is being migrated and
 *   this one key already went: ask there, once, after ASKING).
 * - A small blocking client for a sender (the extension's sender thread):
 *   commands for one slot go to its master, redirections are followed, a
 *   dead master sends us back to the seeds and the other known masters
 *   for a new map (its replica has been promoted meanwhile, or will be).
 *   Every connection keeps redisconn's bounds; every call one deadline.
 *
 * hiredis 0.14 (Debian 12) has no cluster support; this is deliberately
 * small. Not thread-safe: a cluster_client belongs to one thread. */
#ifndef ARCLAMP_REDISCLUSTER_H
#define ARCLAMP_REDISCLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include <hiredis/hiredis.h>

#include "netaddr.h"
#include "redisconn.h"

#define CLUSTER_SLOTS 16384
/* Masters a map may name at most: a reply naming more is refused. */
#define CLUSTER_MAX_NODES 1024
/* owner[] value of a slot no master serves (the cluster is down there). */
#define CLUSTER_NO_OWNER UINT16_MAX
/* Redirections followed for one command before giving up. */
#define CLUSTER_MAX_REDIRECTS 5

/* CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0). */
unsigned cluster_crc16(const char *buf, size_t len);
/* The slot of a key, hash tags honoured. */
unsigned cluster_key_slot(const char *key, size_t len);

struct cluster_node {
    char host[256];
    char port[NETADDR_PORT_MAX];
};

/* Parses "HOST:PORT[,HOST:PORT...]" (the seeds of a target or of the
 * daemon's configuration; netaddr_split's spellings). *nodes is
 * malloc()ed, the caller frees it. 0, or -1 with a reason in why. */
int cluster_nodes_parse(const char *list, struct cluster_node **nodes, size_t *n, char *why,
                        size_t whylen);

struct cluster_map {
    struct cluster_node *nodes;    /* the masters, malloc()ed */
    size_t nnodes;
    uint16_t owner[CLUSTER_SLOTS]; /* index into nodes, or CLUSTER_NO_OWNER */
    size_t covered;                /* slots with an owner */
};

void cluster_map_init(struct cluster_map *m);
void cluster_map_free(struct cluster_map *m);
/* Replaces *m with the map a reply to CLUSTER SLOTS describes. A master
 * announced with an empty host (or "?") is taken to be on `asked_host`,
 * the address the question went to, as redis-cli does. 0, or -1 with a
 * reason in why and *m unchanged (a reply of the wrong shape, a slot range
 * outside 0..16383, more than CLUSTER_MAX_NODES masters). */
int cluster_map_from_slots(struct cluster_map *m, const redisReply *r, const char *asked_host,
                           char *why, size_t whylen);
/* The master of `slot`, or NULL. */
const struct cluster_node *cluster_map_owner(const struct cluster_map *m, unsigned slot);
/* Sets the master of one slot (after a MOVED), adding the node when new.
 * 0, or -1 when the map is full. */
int cluster_map_move(struct cluster_map *m, unsigned slot, const char *host, const char *port);

enum cluster_redirect_kind { CLUSTER_NO_REDIRECT, CLUSTER_MOVED, CLUSTER_ASK };

struct cluster_redirect {
    enum cluster_redirect_kind kind;
    unsigned slot;
    struct cluster_node to;
};

/* Reads an error reply's text ("MOVED 3999 127.0.0.1:6381"). Returns its
 * kind (CLUSTER_NO_REDIRECT for any other error, or a malformed one; *out
 * is then untouched). An IPv6 address comes without brackets from Redis
 * ("MOVED 1 ::1:7001") and is read so; ":PORT" (a node that does not know
 * its own address) gives to.host "": the host the command was sent to. */
enum cluster_redirect_kind cluster_redirect_parse(const char *err, size_t len,
                                                  struct cluster_redirect *out);
/* True for errors that mean "ask again after a new map": CLUSTERDOWN,
 * TRYAGAIN (a multi-key command during a migration) and the redirections. */
int cluster_error_wants_map(const char *err, size_t len);

/* --- the blocking client ------------------------------------------------- */

/* One command; argv/argvlen as redisconn_command takes them. */
struct cluster_command {
    int argc;
    const char **argv;
    const size_t *argvlen;
};

/* The final reply of command `index` (after redirections): the reply is
 * freed after the call. Replies come in the order they arrive: a
 * redirected command's after the others'. */
typedef void (*cluster_reply_fn)(void *arg, size_t index, redisReply *reply);

/* Connections kept at once (a sender talks to one or two masters). */
#define CLUSTER_CLIENT_CONNS 4

struct cluster_conn {
    struct cluster_node node;
    int used;
    redisconn conn;
    double last_used;              /* the least recently used goes first */
};

struct cluster_client {
    struct redisconn_options opt;  /* credentials and limits; host/port per node */
    struct cluster_node *seeds;    /* owned */
    size_t nseeds;
    struct cluster_map map;
    int have_map;
    struct cluster_conn conns[CLUSTER_CLIENT_CONNS];
    unsigned long map_fetches;     /* CLUSTER SLOTS asked (successfully) */
    unsigned long redirects;       /* MOVED and ASK followed */
    int err;                       /* enum redisconn_error of the last failure */
    int reached;                   /* the last failure came after some server answered */
    char errstr[256];              /* its cause */
};

/* Takes a copy of opt (host, port and unix_path ignored) and of the seeds. */
void cluster_client_init(struct cluster_client *cc, const struct redisconn_options *opt,
                         const struct cluster_node *seeds, size_t nseeds);
void cluster_client_free(struct cluster_client *cc);
/* Drops every connection (fork, shutdown); the map is kept. */
void cluster_client_close(struct cluster_client *cc);

/* Sends the n commands — all for keys of `slot` — to the slot's master,
 * pipelined, before `deadline` (clock_mono seconds): fetches the map first
 * when there is none (from the seeds, then every master of the last map),
 * follows MOVED (the map is updated) and ASK (ASKING first, on that node)
 * for each command at most CLUSTER_MAX_REDIRECTS times, and after a
 * connection failure or CLUSTERDOWN/TRYAGAIN fetches a new map and sends
 * the commands not yet answered again while time is left. on_reply gets
 * every command's final reply (an error reply included). Returns the
 * number of commands with a final reply; fewer than n leaves err/errstr. */
size_t cluster_client_run(struct cluster_client *cc, unsigned slot,
                          const struct cluster_command *cmds, size_t n, double deadline,
                          cluster_reply_fn on_reply, void *arg);

#endif
