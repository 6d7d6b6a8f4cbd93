/* storeconf: the object_store section's option table, credentials and
 * checks. See storeconf.h. */
#include "storeconf.h"
#include "strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CONN(f) offsetof(struct store_config, conn.f)
#define SC(f) offsetof(struct store_config, f)

static int bind_hosts(const struct opt *opt, const struct ynode *node, void *field,
                      const char *key, struct conf_ctx *ctx);

const struct opt store_config_options[] = {
    {"type", OPT_ENUM, CONN(kind), "none", .choices = "none|swift|s3",
     .doc = "none (nothing published or read), swift or s3"},
    {"auth_url", OPT_STRING, CONN(auth_url), NULL,
     .doc = "Swift v1 auth URL, .../auth/v1.0 (default: $ST_AUTH)"},
    {"user", OPT_STRING, CONN(user), NULL, .doc = "Swift account:user (default: $ST_USER)"},
    {"key", OPT_STRING, CONN(key), NULL,
     .doc = "Swift key (default: $ST_KEY; better in credentials_file)"},
    {"storage_url", OPT_STRING, CONN(storage_url), NULL,
     .doc = "Swift storage URL, with token instead of auth (default: $OS_STORAGE_URL)"},
    {"token", OPT_STRING, CONN(token), NULL, .doc = "Swift token (default: $OS_AUTH_TOKEN)"},
    {"endpoint", OPT_STRING, CONN(endpoint), NULL,
     .doc = "S3 endpoint URL (default: $AWS_ENDPOINT_URL)"},
    {"region", OPT_STRING, CONN(region), NULL,
     .doc = "S3 region (default: $AWS_REGION, $AWS_DEFAULT_REGION, us-east-1)"},
    {"bucket", OPT_STRING, CONN(bucket), NULL,
     .doc = "S3 bucket; containers become key prefixes in it"},
    {"access_key", OPT_STRING, CONN(access_key), NULL,
     .doc = "S3 access key (default: $AWS_ACCESS_KEY_ID)"},
    {"secret_key", OPT_STRING, CONN(secret_key), NULL,
     .doc = "S3 secret key (default: $AWS_SECRET_ACCESS_KEY; better in credentials_file)"},
    {"path_style", OPT_BOOL, CONN(path_style), "true",
     .doc = "S3 URLs <endpoint>/<bucket>/<key> (on-premise stores); false: virtual host"},
    {"ca_file", OPT_STRING, CONN(ca_file), NULL, .doc = "CA bundle for https (default: the system's)"},
    {"connect_timeout", OPT_SECONDS, CONN(connect_timeout), "10", 0.1, 600,
     .doc = "seconds per connection attempt"},
    {"request_timeout", OPT_SECONDS, CONN(request_timeout), "120", 1, 86400,
     .doc = "seconds per request, transfer included"},
    {"retries", OPT_INT, CONN(retries), "3", 0, 20,
     .doc = "retries of a request that failed for a reason worth retrying"},
    {"retry_delay", OPT_SECONDS, CONN(retry_delay), "1", 0, 30,
     .doc = "seconds before the first retry, doubled each time (at most 30)"},
    {"run_budget", OPT_SECONDS, CONN(run_budget), "600", 0, 86400,
     .doc = "seconds a run may spend on the store; what is left is done next run (0: no limit)"},
    {"max_listing_items", OPT_INT, CONN(max_listing_items), "1000000", 1, 1e9,
     .doc = "objects one container listing may hold before it is refused"},
    {"max_listing_bytes", OPT_INT, CONN(max_listing_bytes), "16777216", 4096, 1 << 30,
     .doc = "bytes of one listing page before it is refused"},
    {"credentials_file", OPT_STRING, SC(credentials_file), NULL,
     .doc = "KEY=value file (ST_USER, ST_KEY, AWS_SECRET_ACCESS_KEY, ...), mode 0600 "
            "(default: $CREDENTIALS_DIRECTORY/" STORECONF_CREDENTIAL_NAME " if present)"},
    {"container_prefix", OPT_STRING, SC(container_prefix), "arclamp",
     .doc = "containers are <prefix>-logs-<period>, <prefix>-svgs-<period>, "
            "<prefix>-reports-<period>, <prefix>-index"},
    {"host", OPT_STRING, SC(host), NULL,
     .doc = "prefix of the logs this host publishes (<host>/<name>.log.gz); "
            "unset: no prefix (the original's names)"},
    {"publish", OPT_BOOL, SC(publish), "true", .doc = "upload what the run wrote"},
    {"from_store", OPT_BOOL, SC(from_store), "false",
     .doc = "draw from the logs of every host in the store instead of the local ones"},
    {"hosts", OPT_CUSTOM, SC(hosts), NULL, .custom = bind_hosts,
     .doc = "with from_store: the hosts whose logs are read (default: all)"},
    {"periods", OPT_CUSTOM, SC(periods), NULL, .custom = bind_hosts,
     .doc = "with from_store: the periods whose logs are read (default: hourly, daily)"},
    {"retention_days", OPT_SECONDS, SC(retention_days), "1095", 0.0001, 36500,
     .doc = "days logs are kept in the store (fractions allowed): Swift X-Delete-After, "
            "on S3 older ones are deleted by the job"},
    {"max_object_mb", OPT_INT, SC(max_object_mb), "4096", 1, 1 << 20,
     .doc = "largest object read from the store, MiB"},
    {NULL},
};

/* The hosts list as the struct declares it: pointer, then count. */
struct host_list {
    char **items;
    size_t n;
};

static void free_hosts(struct host_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        free(list->items[i]);
    free(list->items);
    list->items = NULL;
    list->n = 0;
}

static int bind_hosts(const struct opt *opt, const struct ynode *node, void *field,
                      const char *key, struct conf_ctx *ctx)
{
    (void)opt;
    struct host_list *list = field;
    free_hosts(list);
    if (node->type != YNODE_SEQ || node->nitems > STORECONF_HOSTS_MAX)
        return conf_error(ctx, node, key, "expected a list of at most %d names",
                          STORECONF_HOSTS_MAX);
    list->items = xcalloc(node->nitems ? node->nitems : 1, sizeof *list->items);
    for (size_t i = 0; i < node->nitems; i++) {
        char ikey[64];
        snprintf(ikey, sizeof ikey, "%s[%zu]", key, i);
        list->n = i + 1; /* counted first, so an error frees it too */
        if (conf_parse_string(node->items[i], &list->items[i], ikey, ctx) < 0)
            return -1;
        if (!list->items[i] || !store_host_ok(list->items[i]))
            return conf_error(ctx, node->items[i], ikey,
                              "a name is 1 to %d of [A-Za-z0-9_.-], not . or ..",
                              STORECONF_HOST_MAX);
    }
    return 0;
}

int store_host_ok(const char *host)
{
    size_t n = strlen(host);
    if (n == 0 || n > STORECONF_HOST_MAX || strcmp(host, ".") == 0 || strcmp(host, "..") == 0)
        return 0;
    return strspn(host, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

int store_host_wanted(const struct store_config *sc, const char *host)
{
    if (sc->nhosts == 0)
        return 1;
    for (size_t i = 0; i < sc->nhosts; i++) {
        if (strcmp(sc->hosts[i], host) == 0)
            return 1;
    }
    return 0;
}

void store_container(const struct store_config *sc, const char *what, const char *period,
                     char *out, size_t outlen)
{
    const char *prefix = sc->container_prefix ? sc->container_prefix : "arclamp";
    if (period)
        snprintf(out, outlen, "%s-%s-%s", prefix, what, period);
    else
        snprintf(out, outlen, "%s-%s", prefix, what);
}

/* The credentials file: the configured one, else the one systemd's
 * LoadCredential= placed, else none (NULL, nothing to free). */
static char *credentials_path(const struct store_config *sc)
{
    if (sc->credentials_file)
        return xstrdup(sc->credentials_file);
    const char *dir = getenv("CREDENTIALS_DIRECTORY");
    if (!dir || !*dir)
        return NULL;
    strbuf path = STRBUF_INIT;
    strbuf_appendf(&path, "%s/%s", dir, STORECONF_CREDENTIAL_NAME);
    if (access(strbuf_cstr(&path), F_OK) == 0)
        return (char *)strbuf_cstr(&path);
    strbuf_free(&path);
    return NULL;
}

int store_config_finish(struct store_config *sc, char *err, size_t errlen)
{
    if (sc->conn.kind == OBJSTORE_NONE)
        return 0;
    if (sc->host && sc->host[0] && !store_host_ok(sc->host)) {
        snprintf(err, errlen,
                 "host: a host name is 1 to %d of [A-Za-z0-9_.-], not . or ..",
                 STORECONF_HOST_MAX);
        return -1;
    }
    const char *prefix = sc->container_prefix;
    if (!prefix || !*prefix || strlen(prefix) > 64 || strchr(prefix, '/')) {
        snprintf(err, errlen, "container_prefix: 1 to 64 bytes, no '/'");
        return -1;
    }
    if (sc->nperiods == 0) {
        static const char *const defaults[] = {"hourly", "daily"};
        sc->periods = xcalloc(2, sizeof *sc->periods);
        for (sc->nperiods = 0; sc->nperiods < 2; sc->nperiods++)
            sc->periods[sc->nperiods] = xstrdup(defaults[sc->nperiods]);
    }
    char *path = credentials_path(sc);
    if (path) {
        char why[512];
        int rc = objstore_config_from_file(&sc->conn, path, why, sizeof why);
        if (rc < 0)
            snprintf(err, errlen, "credentials_file: %s", why);
        free(path);
        if (rc < 0)
            return -1;
    }
    objstore_config_from_env(&sc->conn);
    char why[512];
    if (objstore_config_check(&sc->conn, why, sizeof why) < 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    return 0;
}

void store_config_free(struct store_config *sc)
{
    free_hosts((struct host_list *)&sc->hosts);
    free_hosts((struct host_list *)&sc->periods);
}
