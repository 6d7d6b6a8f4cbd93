/* transport: sends collapsed sample lines to Arc Lamp, from C.
 *
 * Targets (URIs):
 *   redis://HOST:PORT/CHANNEL          PUBLISH CHANNEL LINE, one per line
 *   redis://HOST:PORT/KEY?stream=1     XADD KEY MAXLEN ~ 1000000 * sample LINE
 *                                      (arclamp-log's stream mode)
 *   udp://HOST:PORT                    datagrams of whole lines, up to 60 KiB each
 *   unix:///PATH                       the same over a unix datagram socket
 * A whole send is bounded by one deadline (connect, write and replies);
 * datagrams never block (a full socket buffer drops and counts). Failures
 * are counted per reason and never raised into the request. A Redis
 * connection is kept open for the next send from the same process (php-fpm
 * workers serve many requests) and dropped on any error.
 *
 * No Zend types here: this file is plain POSIX + hiredis (the RESP reply
 * parser and command formatting). */
#ifndef EXCIMER_TRANSPORT_H
#define EXCIMER_TRANSPORT_H

#include <stddef.h>

enum transport_kind { TRANSPORT_REDIS_PUBLISH, TRANSPORT_REDIS_XADD, TRANSPORT_UDP, TRANSPORT_UNIX };

typedef struct transport_target {
    enum transport_kind kind;
    char host[256];        /* redis/udp host */
    char port[8];          /* redis/udp port */
    char path[108];        /* unix socket path */
    char key[256];         /* redis channel or stream key */
} transport_target;

/* Why a send failed; names are the keys of excimer_arclamp_stats(). */
enum transport_error {
    TRANSPORT_ERR_CONNECT,   /* could not connect / resolve */
    TRANSPORT_ERR_TIMEOUT,   /* the deadline passed */
    TRANSPORT_ERR_SEND,      /* write or sendto failed (datagram buffer full included) */
    TRANSPORT_ERR_REPLY,     /* Redis answered with an error or garbage */
    TRANSPORT_NERRORS
};

typedef struct transport_stats {
    long lines_sent;                     /* lines delivered (Redis: acknowledged) */
    long lines_failed;                   /* lines not delivered */
    long lines_unheard;                  /* PUBLISHed lines (counted as sent) that no
                                            subscriber received: Redis answered 0 and
                                            dropped them (pub/sub keeps nothing) */
    long errors[TRANSPORT_NERRORS];      /* failed sends per reason */
    char last_error[256];                /* the last failure, for humans */
} transport_stats;

const char *transport_error_name(enum transport_error e);

/* Parses a target URI. 0, or -1 with a message in err. */
int transport_parse(const char *uri, transport_target *t, char *err, size_t errlen);

/* Sends n lines (without newlines). Returns the number delivered; failures
 * are added to st. `timeout` bounds the whole call, in seconds. */
long transport_send(const transport_target *t, const char *const *lines, const size_t *lens,
                    size_t n, double timeout, transport_stats *st);

/* Closes a kept Redis connection (module shutdown, and after fork). */
void transport_close_cached(void);

#endif
