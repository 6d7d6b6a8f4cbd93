/* storeconf: the `object_store:` section both timer jobs (arclamp-svg,
 * arclamp-report) read from their YAML — where the store is, how to reach
 * it, and what this host publishes to it or reads from it.
 *
 *   object_store:
 *     type: swift                 # none | swift | s3
 *     auth_url: http://swift.example.org/auth/v1.0
 *     credentials_file: /etc/arclamp/object-store.env   # ST_USER=... ST_KEY=... (0600)
 *     host: eqiad                 # this host's logs go under "eqiad/"
 *
 * Credentials are taken, in this order, from the YAML keys, from
 * `credentials_file` (or $CREDENTIALS_DIRECTORY/arclamp-object-store when
 * systemd's LoadCredential= put one there), then from the environment the
 * swift and aws command lines read (objstore.h). One option table serves
 * both programs; keys one program has no use for are documented as such. */
#ifndef ARCLAMP_STORECONF_H
#define ARCLAMP_STORECONF_H

#include <stddef.h>

#include "conftable.h"
#include "objstore.h"

/* The file systemd's LoadCredential=arclamp-object-store:PATH provides. */
#define STORECONF_CREDENTIAL_NAME "arclamp-object-store"
/* Longest host prefix. */
#define STORECONF_HOST_MAX 64
/* Most entries of `hosts`. */
#define STORECONF_HOSTS_MAX 256

struct store_config {
    struct objstore_config conn;
    char *credentials_file;   /* KEY=value file (0600); NULL: the systemd credential if any */
    char *container_prefix;   /* "arclamp": arclamp-logs-<period>, arclamp-svgs-<period> */
    char *host;               /* prefix of the logs this host publishes; NULL/"": none (the
                                 original's names) */
    int publish;              /* upload what this program wrote, after each run */
    int from_store;           /* draw from every host's logs in the store, not local ones */
    char **hosts;             /* with from_store: the hosts read; none: all */
    size_t nhosts;
    char **periods;           /* with from_store: the periods read (hourly, daily) */
    size_t nperiods;
    double retention_days;    /* logs: Swift X-Delete-After; S3: older objects deleted */
    long max_object_mb;       /* largest object downloaded */
};

/* The rows of the section, for an OPT_MAP `.sub` (the storage is a struct
 * store_config). */
extern const struct opt store_config_options[];

/* After binding: fills credentials (file, systemd credential, environment)
 * and checks the whole section. Nothing to do when the type is none.
 * 0, or -1 with why in err. */
int store_config_finish(struct store_config *sc, char *err, size_t errlen);
/* Frees the hosts list (the strings are the table's: conf_free frees them). */
void store_config_free(struct store_config *sc);

/* The container of a kind of object for a period: "<prefix>-logs-hourly".
 * `what` is "logs", "svgs", "reports" or "index" (then period is NULL). */
void store_container(const struct store_config *sc, const char *what, const char *period,
                     char *out, size_t outlen);
/* 1 when `host` may name a prefix: [A-Za-z0-9_.-], 1 to STORECONF_HOST_MAX
 * bytes, not "." or "..". */
int store_host_ok(const char *host);
/* 1 when `host` is one of sc->hosts, or sc->hosts is empty. */
int store_host_wanted(const struct store_config *sc, const char *host);

#endif
