/* socket_input: datagram ingest sockets, activated or opened from config. */
#include "socket_input.h"
#include "clock.h"
#include "log.h"
#include "netaddr.h"
#include "strbuf.h"

#include <errno.h>
#include <linux/sock_diag.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

/* Datagrams handled per wakeup at most, so other inputs get their turn. */
#define DATAGRAMS_PER_WAKEUP 512
/* Receive buffer asked of the kernel: absorbs bursts while we write. */
#define RCVBUF_BYTES (8 * 1024 * 1024)

struct socket_input {
    int fd;                      /* the socket */
    int owned;                   /* opened by us: close it at stop */
    char *unlink_path;           /* unix socket path we created, or NULL */
    char *name;                  /* address or FileDescriptorName, for logs */
    unsigned long long groups;   /* log groups its channel feeds */
    struct ingest *ingest;       /* borrowed */
    sd_event *loop;              /* borrowed */
    sd_event_source *src;        /* read watch */
    char *buf;                   /* one datagram */
    size_t buflen;               /* max_message_bytes */
    uint32_t *drops;             /* the kernel's drop counter as last seen: in the
                                    activated_fd for sockets systemd passed, which
                                    outlive a reload, else own_drops */
    uint32_t own_drops;          /* the counter of a socket we opened */
    unsigned long long dropped;  /* datagrams the kernel dropped */
};

/* The kernel's count of datagrams this socket dropped so far (the counter
 * SO_RXQ_OVFL reports, which only ever grows). A socket systemd passes may
 * come with history: a daemon that ran before us, or a full queue while
 * none ran. Only what is dropped from now on is ours to count. */
static uint32_t kernel_drops(int fd)
{
    uint32_t mem[SK_MEMINFO_VARS];
    socklen_t len = sizeof mem;
    if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0 || len <= SK_MEMINFO_DROPS * 4)
        return 0;
    return mem[SK_MEMINFO_DROPS];
}

int socket_activated_fds(struct activated_fd **out, char *err, size_t errlen)
{
    char **names = NULL;
    int n = sd_listen_fds_with_names(1, &names);
    *out = NULL;
    if (n <= 0)
        return n < 0 ? 0 : n;
    struct activated_fd *fds = xcalloc((size_t)n, sizeof *fds);
    int bad = -1;
    for (int i = 0; i < n; i++) {
        fds[i].fd = SD_LISTEN_FDS_START + i;
        fds[i].name = xstrdup(names && names[i] ? names[i] : "unknown");
        fds[i].drops = kernel_drops(fds[i].fd);
        if (sd_is_socket(fds[i].fd, AF_UNSPEC, SOCK_DGRAM, -1) <= 0 && bad < 0)
            bad = i;
    }
    for (int i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    *out = fds;
    if (bad >= 0) {
        snprintf(err, errlen, "socket %d (%s) passed by systemd is not a datagram socket "
                 "(use ListenDatagram= in the socket unit)", fds[bad].fd, fds[bad].name);
        return -1;
    }
    return n;
}

static void note_kernel_drops(struct socket_input *si, struct msghdr *msg)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_RXQ_OVFL)
            continue;
        uint32_t total;
        memcpy(&total, CMSG_DATA(c), sizeof total);
        if (total != *si->drops) {
            uint32_t fresh = total - *si->drops;
            si->dropped += fresh;
            si->ingest->stats->datagrams_dropped += fresh;
            *si->drops = total;
            log_event(LOG_WARNING, "datagrams_dropped", LOG_FIELDS({"ARCLAMP_SOCKET", si->name}),
                      "the kernel dropped %u datagrams on %s (receive buffer full)", fresh,
                      si->name);
        }
    }
}

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct socket_input *si = userdata;
    (void)s;
    (void)revents;
    union {
        char buf[CMSG_SPACE(sizeof(uint32_t))];
        struct cmsghdr align;
    } control;
    for (int i = 0; i < DATAGRAMS_PER_WAKEUP; i++) {
        struct iovec iov = {si->buf, si->buflen};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                             .msg_controllen = sizeof control.buf};
        ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR)
                log_event(LOG_ERR, "socket_error", LOG_FIELDS({"ARCLAMP_SOCKET", si->name}),
                          "reading %s: %s", si->name, strerror(errno));
            break;
        }
        note_kernel_drops(si, &msg);
        double now_mono = clock_mono();
        if ((size_t)n > si->buflen || (msg.msg_flags & MSG_TRUNC))
            ingest_refuse_message(si->ingest, STACKLINE_TOO_LONG, INPUT_SOCKET, now_mono);
        else
            ingest_message(si->ingest, si->buf, (size_t)n, si->groups, INPUT_SOCKET, (time_t)clock_wall_seconds(),
                           now_mono, 0);
    }
    return 0;
}

static struct socket_input *wrap(sd_event *loop, const struct config *cfg, struct ingest *ingest,
                                 int fd, const char *name, const char *channel,
                                 uint32_t *drops, char *err, size_t errlen)
{
    struct socket_input *si = xcalloc(1, sizeof *si);
    si->fd = fd;
    si->drops = drops ? drops : &si->own_drops;
    si->name = xstrdup(name);
    si->groups = config_groups_for_channel(cfg, channel ? channel : cfg->channels[0]);
    si->ingest = ingest;
    si->loop = loop;
    si->buflen = (size_t)cfg->max_message_bytes;
    si->buf = xmalloc(si->buflen);
    int one = 1, size = RCVBUF_BYTES;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
    if (sd_event_add_io(loop, &si->src, fd, EPOLLIN, on_readable, si) < 0 ||
        sd_event_source_set_ratelimit(si->src, INGEST_COALESCE_USEC, 1) < 0) {
        snprintf(err, errlen, "%s: cannot watch the socket", name);
        free(si->buf);
        free(si->name);
        free(si);
        return NULL;
    }
    return si;
}

struct socket_input *socket_input_adopt(sd_event *loop, const struct config *cfg,
                                        struct ingest *ingest, struct activated_fd *afd,
                                        char *err, size_t errlen)
{
    /* systemd names sockets after their unit unless FileDescriptorName= is
     * set; only a chosen name says which channel the samples belong to. */
    const char *channel = afd->name;
    size_t len = strlen(channel);
    if (strcmp(channel, "unknown") == 0 || (len > 7 && strcmp(channel + len - 7, ".socket") == 0))
        channel = NULL;
    char name[128];
    snprintf(name, sizeof name, "fd %d (%s)", afd->fd, afd->name);
    return wrap(loop, cfg, ingest, afd->fd, name, channel, &afd->drops, err, errlen);
}

/* The socket is made 0600 and then given the configured group and mode, so
 * it is never open to more users than configured, not even for a moment. */
static int open_unix(const char *path, const struct config *cfg, char *err, size_t errlen)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    struct stat st;
    if (strlen(path) >= sizeof sun.sun_path) {
        snprintf(err, errlen, "unix://%s: path too long", path);
        return -1;
    }
    strcpy(sun.sun_path, path);
    /* A socket left by an earlier run is replaced; any other file is not. */
    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
        unlink(path);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    mode_t old_umask = umask(0177);
    int bound = fd >= 0 && bind(fd, (struct sockaddr *)&sun, sizeof sun) == 0;
    umask(old_umask);
    /* PHP workers run as other users: the group (arclamp-senders) lets them in. */
    if (!bound || (cfg->listen_gid >= 0 && chown(path, (uid_t)-1, (gid_t)cfg->listen_gid) < 0) ||
        chmod(path, (mode_t)cfg->listen_mode) < 0) {
        snprintf(err, errlen, "unix://%s: %s", path, strerror(errno));
        if (bound)
            unlink(path);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static int open_udp(const char *hostport, char *err, size_t errlen)
{
    char host[256], port[NETADDR_PORT_MAX], why[128];
    if (netaddr_split(hostport, strlen(hostport), host, sizeof host, port, "udp://", why,
                      sizeof why) < 0) {
        snprintf(err, errlen, "udp://%s: %s", hostport, why);
        return -1;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
                    *res;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "udp://%s: %s", hostport, gai_strerror(rc));
        return -1;
    }
    int fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) < 0) {
        snprintf(err, errlen, "udp://%s: %s", hostport, strerror(errno));
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

struct socket_input *socket_input_open(sd_event *loop, const struct config *cfg,
                                       struct ingest *ingest, const struct listen_addr *addr,
                                       char *err, size_t errlen)
{
    int is_unix = strncmp(addr->address, "unix://", 7) == 0;
    int fd = is_unix ? open_unix(addr->address + 7, cfg, err, errlen)
                     : open_udp(addr->address + 6, err, errlen);
    if (fd < 0)
        return NULL;
    struct socket_input *si =
        wrap(loop, cfg, ingest, fd, addr->address, addr->channel, NULL, err, errlen);
    if (!si) {
        close(fd);
        return NULL;
    }
    si->owned = 1;
    if (is_unix)
        si->unlink_path = xstrdup(addr->address + 7);
    return si;
}

void socket_input_stop(struct socket_input *si)
{
    if (!si)
        return;
    si->src = sd_event_source_disable_unref(si->src);
    if (si->owned)
        close(si->fd);
    if (si->unlink_path)
        unlink(si->unlink_path);
    free(si->unlink_path);
    free(si->name);
    free(si->buf);
    free(si);
}

unsigned long long socket_input_drops(const struct socket_input *si)
{
    return si->dropped;
}
