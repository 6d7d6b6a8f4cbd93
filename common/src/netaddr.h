/* netaddr: the one parser of "HOST:PORT" addresses.
 *
 * Every address Arc Lamp reads — udp://HOST:PORT ingest sockets, the
 * extension's redis:// and udp:// targets — goes through netaddr_split, so
 * they all accept the same spellings: a name or IPv4 address before the
 * last colon, an IPv6 address in brackets ("[::1]:7761"), and a decimal port
 * from 1 to 65535. An IPv6 address without brackets is refused: where its
 * last group ends and the port begins would be a guess. */
#ifndef ARCLAMP_NETADDR_H
#define ARCLAMP_NETADDR_H

#include <stddef.h>

/* The port as text: 5 digits and a NUL. */
#define NETADDR_PORT_MAX 6

/* Splits `len` bytes of "HOST:PORT" into a NUL-terminated host (without the
 * brackets of an IPv6 address) and port. Returns 0, or -1 with a reason for
 * humans in `why` ("expected udp://HOST:PORT", "expected a port from 1 to
 * 65535", ...; `scheme`, such as "udp://", is named in it). */
int netaddr_split(const char *s, size_t len, char *host, size_t hostlen,
                  char port[NETADDR_PORT_MAX], const char *scheme, char *why, size_t whylen);

#endif
