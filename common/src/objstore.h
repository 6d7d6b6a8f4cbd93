/* objstore: one client for the object stores Arc Lamp publishes to and reads
 * from — OpenStack Swift (v1 auth as the swift command line does it, or a
 * storage URL and token) and S3 (SigV4, path-style or virtual-host style) —
 * on libcurl.
 *
 * The original Arc Lamp keeps its history in Swift: containers
 * "arclamp-logs-<period>" and "arclamp-svgs-<period>". The same names are
 * used here for both protocols: on Swift a container is a container, on S3
 * it is a key prefix "<container>/" inside the one configured bucket.
 *
 * Every call is bounded: each request has a connect and a total timeout, at
 * most `retries` retries with exponential back-off (connect failures,
 * timeouts, 408, 429, 5xx; a 401 on Swift re-authenticates once), and the
 * whole handle has a deadline (the run's time budget) after which every call
 * fails at once. Redirects are refused (a redirect loop or a listing sent
 * elsewhere is an error, not followed). Responses are read up to a bound
 * (listings: max_listing_bytes per page, max_listing_items per listing;
 * objects: the caller's max_bytes). An upload is reported done only when the
 * store answered 2xx with an ETag equal to the MD5 of the bytes sent (Swift
 * checks the ETag header we send, S3 the Content-MD5), so a caller may delete
 * its local copy only after OBJ_OK.
 *
 * Object names are checked before any request (objstore_name_ok): no empty
 * or "." / ".." component, no leading or doubled "/", no control bytes,
 * valid UTF-8, at most 1024 bytes; they are percent-encoded per component in
 * URLs. A listed object whose name breaks the same rule is skipped and
 * counted (stats.skipped_names): any writer of the container may have named
 * it so, and it must not hide the others.
 *
 * Ownership: the handle owns copies of everything in the config; items given
 * to a listing callback live only during the call. Not thread-safe: one
 * handle per thread (it holds one curl easy handle, reused for keep-alive). */
#ifndef ARCLAMP_OBJSTORE_H
#define ARCLAMP_OBJSTORE_H

#include <stddef.h>
#include <stdint.h>

enum objstore_kind {
    OBJSTORE_NONE,   /* not configured: nothing is published or read */
    OBJSTORE_SWIFT,
    OBJSTORE_S3,
};

/* Settings, as bound from YAML (storeconf.h) and completed from the
 * environment (objstore_config_from_env). Strings are owned by whoever fills
 * the struct; objstore_open copies them. */
struct objstore_config {
    int kind;                 /* enum objstore_kind */
    /* Swift */
    char *auth_url;           /* v1 auth URL, ".../auth/v1.0" (ST_AUTH) */
    char *user;               /* "account:user" (ST_USER) */
    char *key;                /* (ST_KEY) */
    char *storage_url;        /* with token: skip auth (OS_STORAGE_URL) */
    char *token;              /* (OS_AUTH_TOKEN) */
    /* S3 */
    char *endpoint;           /* "https://s3.example.org" (AWS_ENDPOINT_URL) */
    char *region;             /* (AWS_REGION, AWS_DEFAULT_REGION); default "us-east-1" */
    char *bucket;             /* the one bucket; containers are key prefixes in it */
    char *access_key;         /* (AWS_ACCESS_KEY_ID) */
    char *secret_key;         /* (AWS_SECRET_ACCESS_KEY) */
    int path_style;           /* 1: <endpoint>/<bucket>/<key> (on-premise stores); 0: virtual host */
    /* both */
    char *ca_file;            /* CA bundle for https; NULL: the system's */
    double connect_timeout;   /* seconds per connection attempt */
    double request_timeout;   /* seconds per request, transfer included */
    long retries;             /* retries of a failed request (not counting the first try) */
    double retry_delay;       /* seconds before the first retry; doubled each time, at most 30 */
    double run_budget;        /* seconds from objstore_open after which every call fails; 0: none */
    long max_listing_items;   /* items one objstore_list may return before it is refused */
    long max_listing_bytes;   /* bytes of one listing page before it is refused */
};

/* Return codes. OBJ_ERR is worth retrying next run (store down, slow,
 * refusing for now); OBJ_REFUSED is not (bad name, a listing that lies,
 * 4xx other than 401/404/408/429, a redirect); OBJ_NOT_FOUND is a 404. */
enum {
    OBJ_OK = 0,
    OBJ_ERR = -1,
    OBJ_REFUSED = -2,
    OBJ_NOT_FOUND = -3,
};

/* One listing entry, as Swift's JSON listing gives it (S3's XML mapped onto
 * it: Key without the container prefix, ETag unquoted, Size, LastModified). */
struct objstore_item {
    const char *name;          /* without the container / S3 prefix */
    const char *hash;          /* MD5 hex (the ETag) */
    uint64_t bytes;
    const char *last_modified; /* as the store wrote it: "2026-11-22T05:00:00.123456" */
    int64_t last_modified_s;   /* the same as Unix seconds (UTC), -1 if unreadable */
    const char *content_type;  /* NULL on S3 (listings do not carry it) */
};

/* What one upload carries besides the bytes. */
struct objstore_put {
    const char *content_type;     /* NULL: application/octet-stream */
    const char *content_encoding; /* "gzip" or NULL */
    int64_t delete_after;         /* seconds: X-Delete-After on Swift (ignored on S3); 0: keep */
};

/* Counters of one handle's life, for metrics and summaries. */
struct objstore_stats {
    uint64_t requests;        /* HTTP requests sent, retries included */
    uint64_t retries;
    uint64_t uploads;         /* objects confirmed stored */
    uint64_t upload_bytes;
    uint64_t downloads;
    uint64_t download_bytes;
    uint64_t failures;        /* calls that returned OBJ_ERR or OBJ_REFUSED */
    uint64_t skipped_names;   /* listed objects skipped: names objstore_name_ok refuses */
};

struct objstore;

/* Fills fields left NULL/0 from the environment: ST_AUTH, ST_USER, ST_KEY,
 * OS_STORAGE_URL, OS_AUTH_TOKEN for Swift; AWS_ENDPOINT_URL, AWS_REGION (or
 * AWS_DEFAULT_REGION), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY for S3. The
 * strings set are malloc'ed (the caller frees them with the config). */
void objstore_config_from_env(struct objstore_config *cfg);
/* Reads KEY=value lines (the same variable names; '#' comments, blank lines)
 * from `path` into the fields still unset. The file must be a regular file
 * not readable or writable by group or others (mode 0600 or stricter) and
 * owned by the running user or root, else -1 with why in err. 0 on success. */
int objstore_config_from_file(struct objstore_config *cfg, const char *path, char *err,
                              size_t errlen);
/* Checks that the settings of cfg->kind are complete and sane (URLs are
 * http or https, a region and bucket for S3, ...). 0, or -1 with why. */
int objstore_config_check(const struct objstore_config *cfg, char *err, size_t errlen);

/* Creates a handle; no request is sent until the first call (Swift v1 auth
 * happens then). NULL with why in err when the config is incomplete. */
struct objstore *objstore_open(const struct objstore_config *cfg, char *err, size_t errlen);
void objstore_close(struct objstore *st);

/* Makes sure the container exists (Swift: PUT container; S3: nothing, the
 * bucket must exist — checked with HEAD once). */
int objstore_ensure_container(struct objstore *st, const char *container, char *err,
                              size_t errlen);
/* Uploads the whole of the regular file open as `fd` (read from offset 0;
 * its size taken when the call starts; a file that changes size meanwhile
 * fails the call) as container/name. On OBJ_OK, `md5_hex` (33 bytes, may be
 * NULL) holds the hash the store confirmed. */
int objstore_put_fd(struct objstore *st, const char *container, const char *name, int fd,
                    const struct objstore_put *put, char md5_hex[33], char *err, size_t errlen);
/* Downloads container/name into `out_fd` (written from its current
 * position), at most max_bytes (more fails with OBJ_REFUSED). The bytes are
 * stored as they are (a gzip Content-Encoding is not undone). On OBJ_OK,
 * *bytes holds the count and `md5_hex` (may be NULL) the ETag. */
int objstore_get_fd(struct objstore *st, const char *container, const char *name, int out_fd,
                    uint64_t max_bytes, uint64_t *bytes, char md5_hex[33], char *err,
                    size_t errlen);
/* Deletes container/name; a missing object is OBJ_OK. */
int objstore_delete(struct objstore *st, const char *container, const char *name, char *err,
                    size_t errlen);

/* Called once per listed object, in the store's (byte) order; returning
 * non-zero stops the listing (objstore_list then returns OBJ_OK). */
typedef int (*objstore_list_fn)(const struct objstore_item *item, void *arg);
/* Lists every object of `container` whose name starts with `prefix` (NULL or
 * "": all), page by page (marker / continuation token). A missing container
 * is OBJ_NOT_FOUND. A page that is not a well-formed listing, an item
 * outside the prefix, a page over max_listing_bytes, more than
 * max_listing_items items, or a marker that does not advance is OBJ_REFUSED
 * with a clear error; items with bad names are skipped (see the top). */
int objstore_list(struct objstore *st, const char *container, const char *prefix,
                  objstore_list_fn fn, void *arg, char *err, size_t errlen);

/* 1 when `name` is acceptable as an object name (see the top). */
int objstore_name_ok(const char *name);
/* The handle's counters so far. */
const struct objstore_stats *objstore_stats(const struct objstore *st);
/* "swift" / "s3" / "none". */
const char *objstore_kind_name(int kind);

#endif
