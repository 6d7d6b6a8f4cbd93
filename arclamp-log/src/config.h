/* config: arclamp-log's configuration — the structs, the option tables, and
 * loading/validation of the YAML file. Every key is documented in the
 * option tables (config.c), printed by --help and listed in the README. */
#ifndef ARCLAMP_LOG_CONFIG_H
#define ARCLAMP_LOG_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#define CONFIG_DEFAULT_PATH "/etc/arclamp/arclamp-log.yaml"
/* reserved_tier_identities: entries at most (each costs a table up to
 * about 21 KB, tiertable.h). */
#define CONFIG_MAX_RESERVED_IDENTITIES 1000
/* Log groups are routed with a 64-bit mask. */
#define CONFIG_MAX_GROUPS 64

enum redis_mode { REDIS_MODE_PUBSUB, REDIS_MODE_STREAM };

struct redis_config {
    char *host;                   /* TCP host, when unix_socket is NULL */
    long port;
    char *unix_socket;            /* path of a unix socket, or NULL */
    char *username;               /* ACL user, or NULL */
    char *password;               /* AUTH password (from password_file too), or NULL */
    char *password_file;          /* file holding the password, or NULL */
    long db;                      /* SELECT index */
    int mode;                     /* enum redis_mode */
    double connect_timeout;       /* seconds for connect + handshake */
    double socket_timeout;        /* seconds a due reply may take; 0: health_check_interval */
    double health_check_interval; /* seconds of silence before a PING */
    int keepalive;                /* SO_KEEPALIVE */
    char *client_name;            /* CLIENT SETNAME, or NULL */
    int ssl;                      /* redis-py's TLS switch: refused when true */
    double reconnect_max_delay;   /* backoff cap, seconds */
    char *stream_group;           /* consumer group name */
    char *stream_consumer;        /* consumer name; host name when unset */
    long stream_batch;            /* COUNT of each XREADGROUP */
    int stream_delete_acked;      /* XDEL after XACK */
    long socket_buffer_bytes;     /* kernel receive buffer asked for; 0: system default */
    double stream_claim_idle;     /* XAUTOCLAIM entries pending this long elsewhere; 0: never */
    /* Redis Cluster (redis_cluster.h): seeds given means a cluster. */
    char **cluster;               /* seed nodes, "HOST:PORT" each; NULL: one Redis */
    size_t ncluster;
    long shards;                  /* shard keys per channel: CHANNEL{0}..CHANNEL{shards-1} */
    char *shards_read;            /* the shards this instance reads: "all" or "0-7,12" */
    unsigned char *shard_read;    /* shards_read parsed: shards flags, 1 = read */
    double cluster_refresh_interval; /* seconds between slot map refreshes when all is well */
};

struct log_group {
    char *period;          /* directory under base_path */
    char *format;          /* strftime pattern of the bucket (UTC) */
    long retain;           /* files kept per tag */
    long sample_pop;       /* keep every Nth line */
    char **channels;       /* channels feeding this group; NULL means all */
    size_t nchannels;
};

struct listen_addr {
    char *address;         /* udp://HOST:PORT or unix:///PATH */
    char *channel;         /* channel of its samples, or NULL for the default */
};

struct config {
    char *path;                    /* the file it was loaded from */
    char *listen_socket_mode;      /* octal text, e.g. "0660" */
    char *listen_socket_group;     /* group name, or NULL: the daemon's own */
    unsigned listen_mode;          /* listen_socket_mode parsed */
    long listen_gid;               /* listen_socket_group resolved; -1: unset */
    char *base_path;
    char *redis_channel;           /* the original single-channel key */
    char **channels;               /* all channels: redis_channel + redis_channels, unique */
    size_t nchannels, channels_cap;
    int redis_enabled;             /* a redis: section is present */
    struct redis_config redis;
    struct listen_addr *listen;
    size_t nlisten;
    struct log_group *groups;
    size_t ngroups;
    double flush_interval;
    long max_line_bytes;
    long max_message_bytes;
    long max_buffer_bytes;
    long max_open_files;
    long max_tags_per_bucket;      /* tag files a group may create per bucket */
    long max_files_per_period;     /* entries of a period directory before tag files are refused */
    long min_free_disk_bytes;      /* below this much free space lines are refused */
    long min_free_disk_percent;    /* ... or below this share of the space or the inodes */
    long max_pending_runs;         /* hierarchical runs being put together at most */
    long max_run_bytes;            /* one run's lines at most (default: at most max_buffer_bytes) */
    long max_pending_run_bytes;    /* all pending runs' lines together at most */
    double run_timeout;            /* a run without its end line is dropped after this */
    long max_tier_identities;      /* identities per tier table (minute or bucket), then _other */
    char **reserved_tier_identities; /* identities never counted as _other (decoded) */
    size_t nreserved_tier_identities;
    double close_idle_after;
    char *metrics_file;
    double metrics_interval;
    double invalid_report_interval;
    char *log_target;              /* auto | journal | stderr */
    char *warnings;                /* "file:LINE: key: ...\n" per key ignored, or NULL */
    /* internal: the redis_channels list as given, before merging */
    char **extra_channels;
    size_t nextra_channels;
};

/* Redis Cluster's limit on shards: a shard key costs a connection per
 * collector reading it. */
#define CONFIG_MAX_SHARDS 1024

/* Loads and validates `path`. Returns 0, or -1 with "file:LINE: key: why" in err. */
int config_load(const char *path, struct config *cfg, char *err, size_t errlen);
/* Same from YAML text (tests). */
int config_load_string(const char *name, const char *text, struct config *cfg, char *err,
                       size_t errlen);
void config_free(struct config *cfg);
/* The groups (as a bit mask) fed by a channel. */
unsigned long long config_groups_for_channel(const struct config *cfg, const char *channel);
/* Prints "arclamp-log: warning: ..." for every key that was ignored. */
void config_print_warnings(const struct config *cfg, FILE *out);
/* Logs the same (log_event, one entry per key). */
void config_log_warnings(const struct config *cfg);
/* Prints every key with its default and documentation. */
void config_print_help(FILE *out);

#endif
