/* socket_input: the local ingest sockets (UDP and unix datagrams).
 *
 * Each datagram is a message of one or more sample lines. The sockets come
 * from systemd socket activation (LISTEN_FDS, kept for the life of the
 * process and across reloads) or are opened from the `listen` addresses of
 * the configuration. Datagrams the kernel dropped because we were slow are
 * counted too (SO_RXQ_OVFL). */
#ifndef ARCLAMP_LOG_SOCKET_INPUT_H
#define ARCLAMP_LOG_SOCKET_INPUT_H

#include <stdint.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "ingest.h"

struct socket_input;

/* An activated socket: its descriptor and FileDescriptorName. */
struct activated_fd {
    int fd;
    char *name;
    uint32_t drops;   /* the kernel's drop counter as last seen: kept across
                         reloads, which wrap the socket anew */
};

/* Collects the sockets passed by systemd (and unsets LISTEN_*). Returns how
 * many; stream sockets are refused with an error message in err. */
int socket_activated_fds(struct activated_fd **out, char *err, size_t errlen);

/* Wraps an activated descriptor (not closed by socket_input_stop). */
struct socket_input *socket_input_adopt(sd_event *loop, const struct config *cfg,
                                        struct ingest *ingest, struct activated_fd *afd,
                                        char *err, size_t errlen);
/* Opens a configured address. NULL with err set on failure. */
struct socket_input *socket_input_open(sd_event *loop, const struct config *cfg,
                                       struct ingest *ingest, const struct listen_addr *addr,
                                       char *err, size_t errlen);
/* Stops reading; closes (and for unix sockets unlinks) what it opened. */
void socket_input_stop(struct socket_input *si);
/* Datagrams the kernel dropped on this socket so far. */
unsigned long long socket_input_drops(const struct socket_input *si);

#endif
