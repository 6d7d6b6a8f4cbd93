/* netaddr: HOST:PORT parsing. See netaddr.h. */
#include "netaddr.h"

#include <stdio.h>
#include <string.h>

static int parse_port(const char *p, size_t len, char port[NETADDR_PORT_MAX])
{
    long value = 0;
    if (len == 0 || len >= NETADDR_PORT_MAX || p[0] == '0')
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        value = value * 10 + (p[i] - '0');
    }
    if (value > 65535)
        return -1;
    memcpy(port, p, len);
    port[len] = '\0';
    return 0;
}

int netaddr_split(const char *s, size_t len, char *host, size_t hostlen,
                  char port[NETADDR_PORT_MAX], const char *scheme, char *why, size_t whylen)
{
    const char *colon = len ? memrchr(s, ':', len) : NULL;
    const char *h = s;
    size_t hlen = colon ? (size_t)(colon - s) : 0;
    size_t plen = colon ? len - (size_t)(colon + 1 - s) : 0;
    if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
        h++;
        hlen -= 2;
    } else if (hlen && (memchr(h, ':', hlen) || memchr(h, '[', hlen) || memchr(h, ']', hlen))) {
        snprintf(why, whylen, "expected %s[IPv6 ADDRESS]:PORT (brackets around the address)",
                 scheme);
        return -1;
    }
    if (!colon || hlen == 0 || plen == 0 || memchr(h, '\0', hlen)) {
        snprintf(why, whylen, "expected %sHOST:PORT", scheme);
        return -1;
    }
    if (hlen >= hostlen) {
        snprintf(why, whylen, "the host name is longer than %zu bytes", hostlen - 1);
        return -1;
    }
    if (parse_port(colon + 1, plen, port) < 0) {
        snprintf(why, whylen, "expected a port from 1 to 65535");
        return -1;
    }
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    return 0;
}
