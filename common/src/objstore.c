/* objstore: the one object-store client (Swift v1 auth or a given token, S3
 * SigV4) on one reused curl easy handle; see objstore.h for the contract.
 * The HTTP side lives here: URLs, bounded requests with retries and the run
 * deadline, uploads checked against their MD5. Listing pages are parsed by
 * objstore_parse.c, the settings completed and checked by objstore_config.c. */
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/evp.h>

#include "clock.h"
#include "log.h"
#include "objstore.h"
#include "objstore_parse.h"
#include "strbuf.h"

#define DEF_CONNECT_TIMEOUT 10.0
#define DEF_REQUEST_TIMEOUT 60.0
#define DEF_LISTING_ITEMS 1000000L
#define DEF_LISTING_BYTES (16L * 1024 * 1024)
#define MAX_RETRY_DELAY 30.0
#define ERR_BODY_MAX 4096   /* bytes of an error answer kept for the message */
#define HDR_MAX 4096        /* longest header value kept (URLs, tokens) */
#define SWIFT_PAGE_LIMIT 1000

struct objstore {
    struct objstore_config cfg;  /* copies of every string, defaults filled */
    CURL *curl;                  /* one handle: its connection cache is the keep-alive */
    double deadline;             /* clock_mono() after which every call fails; 0: none */
    char *storage_url;           /* Swift: from auth or the config */
    char *token;                 /* Swift: X-Auth-Token */
    int bucket_checked;          /* S3: HEAD bucket answered 2xx once */
    struct objstore_stats stats;
};

/* One request and what came back. */
struct req {
    const char *method;          /* GET, PUT, HEAD, DELETE */
    const char *container;       /* NULL: the S3 bucket itself */
    const char *name;            /* NULL: the container */
    const char *query;           /* "?..." already encoded, or NULL */
    const char *url;             /* built by store_request, after auth */
    char what[160];                      /* for messages: "PUT c/name" */
    struct curl_slist *headers;  /* the caller's, besides auth */
    /* upload from a file (in_fd >= 0) */
    int in_fd;
    uint64_t in_size, in_off;
    EVP_MD_CTX *in_md5;          /* MD5 of the bytes actually sent */
    int in_short;                /* the file ended before in_size */
    /* 2xx body: into out_fd (>= 0) or out_buf, at most out_max bytes */
    int out_fd;
    strbuf *out_buf;
    uint64_t out_max, got;
    off_t out_start;             /* out_fd's position at the start, to undo a retried try */
    int too_big, write_failed;
    /* the answer */
    long status;
    strbuf errbody;              /* at most ERR_BODY_MAX bytes of a non-2xx body */
    char etag[130];
    char *location, *storage_url, *auth_token;
};

/* curl_global_init is not thread-safe and must run once per process before
 * any handle; the timer jobs are single-threaded today but a library should
 * not ask its callers to remember this, so the first objstore_open does it
 * under pthread_once. This flag is the only global state of the module. */
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init_once(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static void copy_config(struct objstore_config *d, const struct objstore_config *s)
{
    *d = *s;
    d->auth_url = dup_or_null(s->auth_url);
    d->user = dup_or_null(s->user);
    d->key = dup_or_null(s->key);
    d->storage_url = dup_or_null(s->storage_url);
    d->token = dup_or_null(s->token);
    d->endpoint = dup_or_null(s->endpoint);
    d->region = xstrdup(s->region && *s->region ? s->region : "us-east-1");
    d->bucket = dup_or_null(s->bucket);
    d->access_key = dup_or_null(s->access_key);
    d->secret_key = dup_or_null(s->secret_key);
    d->ca_file = dup_or_null(s->ca_file);
    if (d->connect_timeout == 0)
        d->connect_timeout = DEF_CONNECT_TIMEOUT;
    if (d->request_timeout == 0)
        d->request_timeout = DEF_REQUEST_TIMEOUT;
    if (d->max_listing_items == 0)
        d->max_listing_items = DEF_LISTING_ITEMS;
    if (d->max_listing_bytes == 0)
        d->max_listing_bytes = DEF_LISTING_BYTES;
}

static void free_config(struct objstore_config *c)
{
    char **fields[] = {&c->auth_url, &c->user,   &c->key,        &c->storage_url,
                       &c->token,    &c->endpoint, &c->region,   &c->bucket,
                       &c->access_key, &c->secret_key, &c->ca_file};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (*fields[i] && (fields[i] == &c->key || fields[i] == &c->secret_key ||
                           fields[i] == &c->token))
            memset(*fields[i], 0, strlen(*fields[i]));
        free(*fields[i]);
        *fields[i] = NULL;
    }
}

struct objstore *objstore_open(const struct objstore_config *cfg, char *err, size_t errlen)
{
    if (objstore_config_check(cfg, err, errlen) != 0)
        return NULL;
    if (cfg->kind == OBJSTORE_NONE) {
        snprintf(err, errlen, "objstore: no store configured");
        return NULL;
    }
    pthread_once(&curl_once, curl_init_once);
    if (curl_init_rc != CURLE_OK) {
        snprintf(err, errlen, "objstore: curl_global_init: %s", curl_easy_strerror(curl_init_rc));
        return NULL;
    }
    struct objstore *st = xcalloc(1, sizeof(*st));
    copy_config(&st->cfg, cfg);
    st->curl = curl_easy_init();
    if (!st->curl) {
        snprintf(err, errlen, "objstore: curl_easy_init failed");
        objstore_close(st);
        return NULL;
    }
    if (cfg->run_budget > 0)
        st->deadline = clock_mono() + cfg->run_budget;
    if (cfg->kind == OBJSTORE_SWIFT && cfg->storage_url) {
        st->storage_url = xstrdup(cfg->storage_url);
        st->token = xstrdup(cfg->token);
    }
    return st;
}

void objstore_close(struct objstore *st)
{
    if (!st)
        return;
    if (st->curl)
        curl_easy_cleanup(st->curl);
    free_config(&st->cfg);
    free(st->storage_url);
    if (st->token)
        memset(st->token, 0, strlen(st->token));
    free(st->token);
    free(st);
}

const struct objstore_stats *objstore_stats(const struct objstore *st)
{
    return &st->stats;
}

/* Every public call ends here, so failures are counted once. */
static int done(struct objstore *st, int rc)
{
    if (rc == OBJ_ERR || rc == OBJ_REFUSED)
        st->stats.failures++;
    return rc;
}

/* --- names and URLs ------------------------------------------------------ */

static int container_ok(const char *c)
{
    return objstore_name_ok(c) && !strchr(c, '/') && strlen(c) <= 256;
}

static int check_names(const char *container, const char *name, char *err, size_t errlen)
{
    char q[4 * 64 + 4];
    if (!container || !container_ok(container)) {
        log_quote(q, container ? container : "", container ? strlen(container) : 0, 64);
        snprintf(err, errlen, "bad container name \"%s\"", q);
        return OBJ_REFUSED;
    }
    if (name && !objstore_name_ok(name)) {
        log_quote(q, name, strlen(name), 64);
        snprintf(err, errlen, "bad object name \"%s\"", q);
        return OBJ_REFUSED;
    }
    return OBJ_OK;
}

/* Appends `s` percent-encoded, '/' kept between its components. */
static void append_path(struct objstore *st, strbuf *sb, const char *s)
{
    while (*s) {
        const char *slash = strchr(s, '/');
        size_t n = slash ? (size_t)(slash - s) : strlen(s);
        char *e = curl_easy_escape(st->curl, s, (int)n);
        if (!e)
            abort(); /* out of memory, as strbuf does */
        strbuf_appends(sb, e);
        curl_free(e);
        if (!slash)
            break;
        strbuf_appendc(sb, '/');
        s = slash + 1;
    }
}

static void append_query(struct objstore *st, strbuf *sb, const char *key, const char *val)
{
    char *e = curl_easy_escape(st->curl, val, 0);
    if (!e)
        abort();
    strbuf_appendf(sb, "%c%s=%s", strchr(strbuf_cstr(sb), '?') ? '&' : '?', key, e);
    curl_free(e);
}

static void trim_slash(strbuf *sb)
{
    while (sb->len && sb->data[sb->len - 1] == '/')
        sb->len--;
}

/* The bucket's URL, no trailing '/': path-style "<endpoint>/<bucket>",
 * virtual-host "<scheme>://<bucket>.<host>[:port][/path]". */
static int s3_bucket_url(struct objstore *st, strbuf *sb, char *err, size_t errlen)
{
    const char *ep = st->cfg.endpoint;
    if (st->cfg.path_style) {
        strbuf_appends(sb, ep);
        trim_slash(sb);
        strbuf_appendc(sb, '/');
        append_path(st, sb, st->cfg.bucket);
        return OBJ_OK;
    }
    const char *host = strstr(ep, "://");
    if (!host) {
        snprintf(err, errlen, "bad endpoint URL");
        return OBJ_REFUSED;
    }
    host += 3;
    strbuf_append(sb, ep, (size_t)(host - ep));
    strbuf_appendf(sb, "%s.%s", st->cfg.bucket, host);
    trim_slash(sb);
    return OBJ_OK;
}

/* The URL of a container (name NULL) or an object. */
static int object_url(struct objstore *st, strbuf *sb, const char *container, const char *name,
                      char *err, size_t errlen)
{
    if (st->cfg.kind == OBJSTORE_SWIFT) {
        strbuf_appends(sb, st->storage_url);
        trim_slash(sb);
    } else if (s3_bucket_url(st, sb, err, errlen) != OBJ_OK) {
        return OBJ_REFUSED;
    }
    strbuf_appendc(sb, '/');
    append_path(st, sb, container);
    if (name) {
        strbuf_appendc(sb, '/');
        append_path(st, sb, name);
    }
    return OBJ_OK;
}

/* --- one request ---------------------------------------------------------- */

static int is_2xx(long s)
{
    return s >= 200 && s < 300;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
    struct req *r = arg;
    size_t n = size * nmemb;
    if (!is_2xx(r->status)) {
        /* An error answer: keep its start for the message, read no more. */
        size_t room = ERR_BODY_MAX - r->errbody.len;
        strbuf_append(&r->errbody, data, n < room ? n : room);
        return n < room ? n : 0;
    }
    /* A request that wants no body (PUT container, DELETE, auth) still
     * gets a short one at times ("202 Accepted" pages): read and drop it. */
    uint64_t max = r->out_buf || r->out_fd >= 0 ? r->out_max : ERR_BODY_MAX;
    if (r->got + n > max) {
        r->too_big = 1;
        return 0;
    }
    if (r->out_buf) {
        strbuf_append(r->out_buf, data, n);
    } else if (r->out_fd >= 0) {
        for (size_t off = 0; off < n;) {
            ssize_t w = write(r->out_fd, data + off, n - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                r->write_failed = errno ? errno : EIO;
                return 0;
            }
            off += (size_t)w;
        }
    }
    r->got += n;
    return n;
}

static void keep_header(char **slot, const char *v, size_t n)
{
    free(*slot);
    *slot = n <= HDR_MAX ? xstrndup(v, n) : NULL;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
    struct req *r = arg;
    size_t n = size * nmemb;
    if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        /* A new response (after a 100 Continue): forget the last one's. */
        const char *sp = memchr(data, ' ', n);
        r->status = sp ? strtol(sp + 1, NULL, 10) : 0;
        r->etag[0] = '\0';
        return n;
    }
    const char *colon = memchr(data, ':', n);
    if (!colon)
        return n;
    size_t klen = (size_t)(colon - data);
    const char *v = colon + 1, *end = data + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    size_t vlen = (size_t)(end - v);
#define IS(h) (klen == sizeof(h) - 1 && strncasecmp(data, h, klen) == 0)
    if (IS("etag")) {
        if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"')
            v++, vlen -= 2;
        if (vlen < sizeof(r->etag)) {
            memcpy(r->etag, v, vlen);
            r->etag[vlen] = '\0';
        }
    } else if (IS("location")) {
        keep_header(&r->location, v, vlen);
    } else if (IS("x-storage-url")) {
        keep_header(&r->storage_url, v, vlen);
    } else if (IS("x-auth-token")) {
        keep_header(&r->auth_token, v, vlen);
    }
#undef IS
    return n;
}

static size_t on_read(char *buf, size_t size, size_t nmemb, void *arg)
{
    struct req *r = arg;
    size_t want = size * nmemb;
    if (r->in_off >= r->in_size)
        return 0;
    if (want > r->in_size - r->in_off)
        want = (size_t)(r->in_size - r->in_off);
    ssize_t n;
    do
        n = pread(r->in_fd, buf, want, (off_t)r->in_off);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
        r->in_short = 1; /* the file shrank (or broke) under us */
        return CURL_READFUNC_ABORT;
    }
    EVP_DigestUpdate(r->in_md5, buf, (size_t)n);
    r->in_off += (uint64_t)n;
    return (size_t)n;
}

/* Milliseconds of `want` seconds, cut to what is left before the deadline;
 * at least 1, as 0 would mean "no timeout" to curl. */
static long capped_ms(struct objstore *st, double want)
{
    if (st->deadline > 0 && st->deadline - clock_mono() < want)
        want = st->deadline - clock_mono();
    long ms = (long)(want * 1000.0);
    return ms > 0 ? ms : 1;
}

static void set_options(struct objstore *st, struct req *r, struct curl_slist *hdrs)
{
    CURL *c = st->curl;
    curl_easy_reset(c); /* keeps the live connections (keep-alive) */
    curl_easy_setopt(c, CURLOPT_URL, r->url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, capped_ms(st, st->cfg.connect_timeout));
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, capped_ms(st, st->cfg.request_timeout));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    if (st->cfg.ca_file)
        curl_easy_setopt(c, CURLOPT_CAINFO, st->cfg.ca_file);
    if (strcmp(r->method, "HEAD") == 0) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (strcmp(r->method, "PUT") == 0) {
        curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->in_size);
        curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(c, CURLOPT_READDATA, r);
    } else if (strcmp(r->method, "GET") != 0) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, r->method);
    }
    if (st->cfg.kind == OBJSTORE_S3) {
        char sig[128];
        snprintf(sig, sizeof(sig), "aws:amz:%s:s3", st->cfg.region);
        curl_easy_setopt(c, CURLOPT_AWS_SIGV4, sig);
        /* Set apart, not as USERPWD "a:s": an access key may hold ':'
         * (Swift's s3api keys are "account:user"). */
        curl_easy_setopt(c, CURLOPT_USERNAME, st->cfg.access_key);
        curl_easy_setopt(c, CURLOPT_PASSWORD, st->cfg.secret_key);
    }
}

static void req_reset_answer(struct req *r)
{
    r->status = 0;
    r->etag[0] = '\0';
    r->got = 0;
    r->too_big = r->write_failed = r->in_short = 0;
    r->in_off = 0;
    strbuf_reset(&r->errbody);
    free(r->location);
    free(r->storage_url);
    free(r->auth_token);
    r->location = r->storage_url = r->auth_token = NULL;
    if (r->out_buf)
        strbuf_reset(r->out_buf);
    if (r->in_md5)
        EVP_DigestInit_ex(r->in_md5, EVP_md5(), NULL);
}

static void req_free(struct req *r)
{
    req_reset_answer(r);
    strbuf_free(&r->errbody);
    curl_slist_free_all(r->headers);
    if (r->in_md5)
        EVP_MD_CTX_free(r->in_md5);
}

static int transient(CURLcode rc)
{
    return rc == CURLE_COULDNT_CONNECT || rc == CURLE_OPERATION_TIMEDOUT ||
           rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_SEND_ERROR ||
           rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING || rc == CURLE_PARTIAL_FILE ||
           rc == CURLE_SSL_CONNECT_ERROR;
}

static void http_error(struct req *r, char *err, size_t errlen)
{
    char q[4 * 200 + 4];
    log_quote(q, r->errbody.data ? r->errbody.data : "", r->errbody.len, 200);
    snprintf(err, errlen, "%s: HTTP %ld%s%s", r->what, r->status, q[0] ? ": " : "", q);
}

enum { TRY_DONE, TRY_AGAIN };

#define EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static int has_header(const struct curl_slist *h, const char *name)
{
    size_t n = strlen(name);
    for (; h; h = h->next)
        if (strncasecmp(h->data, name, n) == 0 && h->data[n] == ':')
            return 1;
    return 0;
}

/* Sends one try and judges it: *rc set, TRY_AGAIN when it may be retried. */
static int try_once(struct objstore *st, struct req *r, int *rc, char *err, size_t errlen)
{
    struct curl_slist *hdrs = NULL;
    for (struct curl_slist *h = r->headers; h; h = h->next)
        hdrs = curl_slist_append(hdrs, h->data);
    char tok[HDR_MAX + 32];
    if (st->cfg.kind == OBJSTORE_S3 && !has_header(r->headers, "x-amz-content-sha256")) {
        /* SigV4 on S3 needs the payload hash as a header; curl 7.88 does not
         * add it, so every bodiless request says "the empty body". */
        hdrs = curl_slist_append(hdrs, "x-amz-content-sha256: " EMPTY_SHA256);
    }
    if (st->cfg.kind == OBJSTORE_SWIFT && st->token) {
        snprintf(tok, sizeof(tok), "X-Auth-Token: %s", st->token);
        hdrs = curl_slist_append(hdrs, tok);
    }
    req_reset_answer(r);
    set_options(st, r, hdrs);
    st->stats.requests++;
    CURLcode cc = curl_easy_perform(st->curl);
    curl_easy_getinfo(st->curl, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(hdrs);
    memset(tok, 0, sizeof(tok));
    if (r->too_big) {
        snprintf(err, errlen, "%s: answer larger than %llu bytes", r->what,
                 (unsigned long long)(r->out_buf || r->out_fd >= 0 ? r->out_max : ERR_BODY_MAX));
        *rc = OBJ_REFUSED;
        return TRY_DONE;
    }
    if (r->write_failed) {
        snprintf(err, errlen, "%s: writing the download: %s", r->what, strerror(r->write_failed));
        *rc = OBJ_ERR;
        return TRY_DONE;
    }
    if (r->in_short) {
        snprintf(err, errlen, "%s: the file shrank during the upload", r->what);
        *rc = OBJ_ERR;
        return TRY_DONE;
    }
    if (r->status >= 300 && r->status < 400) {
        char q[4 * 200 + 4];
        log_quote(q, r->location ? r->location : "", r->location ? strlen(r->location) : 0, 200);
        snprintf(err, errlen, "%s: HTTP %ld: redirect refused (Location: %s)", r->what, r->status,
                 q);
        *rc = OBJ_REFUSED;
        return TRY_DONE;
    }
    /* A non-2xx answer cut off after its first 4 KB is still an answer. */
    if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && r->status >= 400)) {
        snprintf(err, errlen, "%s: %s", r->what, curl_easy_strerror(cc));
        *rc = OBJ_ERR;
        return transient(cc) ? TRY_AGAIN : TRY_DONE;
    }
    if (is_2xx(r->status)) {
        *rc = OBJ_OK;
        return TRY_DONE;
    }
    http_error(r, err, errlen);
    long s = r->status;
    *rc = s == 404 ? OBJ_NOT_FOUND : (s == 401 || s == 408 || s == 429 || s >= 500) ? OBJ_ERR
                                                                                 : OBJ_REFUSED;
    return (s == 408 || s == 429 || s >= 500) ? TRY_AGAIN : TRY_DONE;
}

static int budget_spent(struct objstore *st, const char *what, char *err, size_t errlen)
{
    if (st->deadline > 0 && clock_mono() >= st->deadline) {
        snprintf(err, errlen, "%s: the run's time budget of %g s is spent", what,
                 st->cfg.run_budget);
        return 1;
    }
    return 0;
}

/* Puts out_fd back where the try began, so a retried download does not
 * append to a partial one; 0 when that is not possible (a pipe). */
static int rewind_out(struct req *r)
{
    if (r->out_fd < 0 || r->got == 0)
        return 1;
    return lseek(r->out_fd, r->out_start, SEEK_SET) == r->out_start &&
           ftruncate(r->out_fd, r->out_start) == 0;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Sends the request with the retries and back-off the config allows. */
static int perform(struct objstore *st, struct req *r, char *err, size_t errlen)
{
    double delay = st->cfg.retry_delay;
    int rc = OBJ_ERR;
    if (r->out_fd >= 0)
        r->out_start = lseek(r->out_fd, 0, SEEK_CUR);
    for (long attempt = 0;; attempt++) {
        if (budget_spent(st, r->what, err, errlen))
            return OBJ_ERR;
        if (try_once(st, r, &rc, err, errlen) == TRY_DONE)
            return rc;
        if (attempt >= st->cfg.retries || !rewind_out(r))
            return rc;
        if (st->deadline > 0 && clock_mono() + delay >= st->deadline)
            return rc; /* the back-off would outlive the run */
        sleep_s(delay);
        delay = delay * 2 > MAX_RETRY_DELAY ? MAX_RETRY_DELAY : delay * 2;
        st->stats.retries++;
    }
}

/* --- Swift auth ----------------------------------------------------------- */

static int swift_auth(struct objstore *st, char *err, size_t errlen)
{
    if (!st->cfg.auth_url) {
        snprintf(err, errlen, "swift: the token was refused and there is no auth URL to renew it");
        return OBJ_ERR;
    }
    struct req r = {.method = "GET", .url = st->cfg.auth_url, .what = "swift auth",
                    .in_fd = -1, .out_fd = -1, .out_max = 0};

    char h[HDR_MAX + 32];
    snprintf(h, sizeof(h), "X-Auth-User: %s", st->cfg.user);
    r.headers = curl_slist_append(r.headers, h);
    snprintf(h, sizeof(h), "X-Auth-Key: %s", st->cfg.key);
    r.headers = curl_slist_append(r.headers, h);
    memset(h, 0, sizeof(h));
    free(st->token);
    st->token = NULL; /* the auth request carries no token */
    int rc = perform(st, &r, err, errlen);
    if (rc == OBJ_NOT_FOUND)
        rc = OBJ_REFUSED;
    if (rc == OBJ_OK) {
        if (!r.storage_url || !r.auth_token ||
            (strncmp(r.storage_url, "http://", 7) != 0 && strncmp(r.storage_url, "https://", 8) != 0)) {
            snprintf(err, errlen, "swift auth: no http(s) X-Storage-Url or no X-Auth-Token in the answer");
            rc = OBJ_REFUSED;
        } else {
            free(st->storage_url);
            st->storage_url = r.storage_url;
            st->token = r.auth_token;
            r.storage_url = r.auth_token = NULL;
        }
    }
    for (struct curl_slist *l = r.headers; l; l = l->next)
        memset(l->data, 0, strlen(l->data));
    req_free(&r);
    return rc;
}

/* Builds the URL (the storage URL may have changed with auth) and sends. */
static int send_built(struct objstore *st, struct req *r, char *err, size_t errlen)
{
    strbuf url = STRBUF_INIT;
    int rc = OBJ_OK;
    if (r->container) {
        rc = object_url(st, &url, r->container, r->name, err, errlen);
    } else {
        rc = s3_bucket_url(st, &url, err, errlen);
        if (!st->cfg.path_style)
            strbuf_appendc(&url, '/');
    }
    if (rc == OBJ_OK) {
        if (r->query)
            strbuf_appends(&url, r->query);
        r->url = strbuf_cstr(&url);
        rc = perform(st, r, err, errlen);
        r->url = NULL;
    }
    strbuf_free(&url);
    return rc;
}

/* Sends a request to the store: authenticates first on Swift if needed,
 * and once more when the token is refused (expired). */
static int store_request(struct objstore *st, struct req *r, char *err, size_t errlen)
{
    if (st->cfg.kind == OBJSTORE_SWIFT && !st->token) {
        int rc = swift_auth(st, err, errlen);
        if (rc != OBJ_OK)
            return rc;
    }
    int rc = send_built(st, r, err, errlen);
    if (st->cfg.kind == OBJSTORE_SWIFT && r->status == 401 && st->cfg.auth_url) {
        rc = swift_auth(st, err, errlen);
        if (rc == OBJ_OK)
            rc = send_built(st, r, err, errlen);
    }
    return rc;
}

/* --- the calls ------------------------------------------------------------ */

static void req_init(struct req *r, const char *method, const char *container, const char *name)
{
    memset(r, 0, sizeof(*r));
    r->method = method;
    r->container = container;
    r->name = name;
    r->in_fd = r->out_fd = -1;
    snprintf(r->what, sizeof(r->what), "%s %s%s%s", method, container ? container : "(bucket)",
             name ? "/" : "", name ? name : "");
}

static int s3_check_bucket(struct objstore *st, char *err, size_t errlen)
{
    if (st->bucket_checked)
        return OBJ_OK;
    struct req r;
    req_init(&r, "HEAD", NULL, NULL);
    int rc = store_request(st, &r, err, errlen);
    if (rc == OBJ_NOT_FOUND) {
        snprintf(err, errlen, "s3: bucket does not exist: %s", st->cfg.bucket);
        rc = OBJ_REFUSED;
    }
    st->bucket_checked = rc == OBJ_OK;
    req_free(&r);
    return rc;
}

int objstore_ensure_container(struct objstore *st, const char *container, char *err,
                              size_t errlen)
{
    int rc = check_names(container, NULL, err, errlen);
    if (rc != OBJ_OK)
        return done(st, rc);
    if (st->cfg.kind == OBJSTORE_S3)
        return done(st, s3_check_bucket(st, err, errlen));
    struct req r;
    req_init(&r, "PUT", container, NULL);
    r.in_size = 0; /* an empty body: on_read ends at once */
    rc = store_request(st, &r, err, errlen);
    if (rc == OBJ_NOT_FOUND)
        rc = OBJ_REFUSED; /* a PUT answered 404: the account is not there */
    req_free(&r);
    return done(st, rc);
}

static void hex(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
    out[2 * n] = '\0';
}

/* MD5 and SHA-256 of the first `size` bytes of fd (pread: the caller's
 * offset is left alone). */
static int hash_fd(int fd, uint64_t size, unsigned char md5[16], unsigned char sha[32])
{
    EVP_MD_CTX *m = EVP_MD_CTX_new(), *s = EVP_MD_CTX_new();
    if (!m || !s)
        abort();
    EVP_DigestInit_ex(m, EVP_md5(), NULL);
    EVP_DigestInit_ex(s, EVP_sha256(), NULL);
    enum { BUF = 65536 };
    unsigned char *buf = xmalloc(BUF);
    int rc = 0;
    for (uint64_t off = 0; off < size;) {
        size_t want = size - off < BUF ? (size_t)(size - off) : BUF;
        ssize_t n = pread(fd, buf, want, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = -1;
            break;
        }
        EVP_DigestUpdate(m, buf, (size_t)n);
        EVP_DigestUpdate(s, buf, (size_t)n);
        off += (uint64_t)n;
    }
    EVP_DigestFinal_ex(m, md5, NULL);
    EVP_DigestFinal_ex(s, sha, NULL);
    EVP_MD_CTX_free(m);
    EVP_MD_CTX_free(s);
    free(buf);
    return rc;
}

static int header_value_ok(const char *v)
{
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 0;
    return strlen(v) <= 256;
}

static void add_header(struct req *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_header(struct req *r, const char *fmt, ...)
{
    char h[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h, sizeof(h), fmt, ap);
    va_end(ap);
    r->headers = curl_slist_append(r->headers, h);
    if (!r->headers)
        abort();
}

static void put_headers(struct objstore *st, struct req *r, const struct objstore_put *put,
                        const unsigned char md5[16], const unsigned char sha[32])
{
    char md5hex[33], shahex[65];
    hex(md5, 16, md5hex);
    hex(sha, 32, shahex);
    const char *type = put && put->content_type ? put->content_type : "application/octet-stream";
    add_header(r, "Content-Type: %s", type);
    if (put && put->content_encoding)
        add_header(r, "Content-Encoding: %s", put->content_encoding);
    if (st->cfg.kind == OBJSTORE_SWIFT) {
        add_header(r, "ETag: %s", md5hex);
        if (put && put->delete_after > 0)
            add_header(r, "X-Delete-After: %lld", (long long)put->delete_after);
    } else {
        unsigned char b64[32];
        EVP_EncodeBlock(b64, md5, 16);
        add_header(r, "Content-MD5: %s", (const char *)b64);
        /* curl signs this value instead of hashing a body it cannot see
         * (the upload is streamed by READFUNCTION). */
        add_header(r, "x-amz-content-sha256: %s", shahex);
    }
}

/* After a 2xx: the store's ETag, the bytes sent and the file's size must
 * all agree with the MD5 taken before the upload. */
static int put_verify(struct req *r, int fd, uint64_t size, const char *md5hex, int rc,
                      char *err, size_t errlen)
{
    unsigned char sent[16];
    char senthex[33];
    EVP_DigestFinal_ex(r->in_md5, sent, NULL);
    hex(sent, 16, senthex);
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (uint64_t)sb.st_size != size || strcmp(senthex, md5hex) != 0) {
        snprintf(err, errlen, "%s: the file changed during the upload", r->what);
        return OBJ_ERR;
    }
    if (rc != OBJ_OK)
        return rc; /* the store's refusal stands (err holds it) */
    if (strcasecmp(r->etag, md5hex) != 0) {
        char q[4 * 64 + 4];
        log_quote(q, r->etag, strlen(r->etag), 64);
        snprintf(err, errlen, "%s: store answered ETag %s for MD5 %s", r->what, q[0] ? q : "(none)",
                 md5hex);
        return OBJ_ERR;
    }
    return OBJ_OK;
}

int objstore_put_fd(struct objstore *st, const char *container, const char *name, int fd,
                    const struct objstore_put *put, char md5_hex[33], char *err, size_t errlen)
{
    int rc = check_names(container, name, err, errlen);
    if (rc != OBJ_OK)
        return done(st, rc);
    if ((put && put->content_type && !header_value_ok(put->content_type)) ||
        (put && put->content_encoding && !header_value_ok(put->content_encoding))) {
        snprintf(err, errlen, "bad Content-Type or Content-Encoding for %s", name);
        return done(st, OBJ_REFUSED);
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", name);
        return done(st, OBJ_REFUSED);
    }
    uint64_t size = (uint64_t)sb.st_size;
    unsigned char md5[16], sha[32];
    char md5hex[33];
    if (hash_fd(fd, size, md5, sha) != 0) {
        snprintf(err, errlen, "%s: reading the file: %s", name,
                 errno ? strerror(errno) : "it shrank");
        return done(st, OBJ_ERR);
    }
    hex(md5, 16, md5hex);
    if (st->cfg.kind == OBJSTORE_S3 && (rc = s3_check_bucket(st, err, errlen)) != OBJ_OK)
        return done(st, rc);
    struct req r;
    req_init(&r, "PUT", container, name);
    r.in_fd = fd;
    r.in_size = size;
    r.in_md5 = EVP_MD_CTX_new();
    if (!r.in_md5)
        abort();
    put_headers(st, &r, put, md5, sha);
    rc = store_request(st, &r, err, errlen);
    if (rc == OBJ_OK || (rc == OBJ_REFUSED && r.in_off == size && size > 0))
        /* A refusal of the whole body may be the store's own MD5 check
         * (Swift 422, S3 BadDigest) catching a file that changed under
         * us: that is worth another try next run, not a refusal. */
        rc = put_verify(&r, fd, size, md5hex, rc, err, errlen);
    else if (rc == OBJ_NOT_FOUND)
        rc = OBJ_REFUSED; /* a PUT answered 404: no such container */
    if (rc == OBJ_OK) {
        st->stats.uploads++;
        st->stats.upload_bytes += size;
        if (md5_hex)
            memcpy(md5_hex, md5hex, 33);
    }
    req_free(&r);
    return done(st, rc);
}

int objstore_get_fd(struct objstore *st, const char *container, const char *name, int out_fd,
                    uint64_t max_bytes, uint64_t *bytes, char md5_hex[33], char *err,
                    size_t errlen)
{
    int rc = check_names(container, name, err, errlen);
    if (rc != OBJ_OK)
        return done(st, rc);
    struct req r;
    req_init(&r, "GET", container, name);
    r.out_fd = out_fd;
    r.out_max = max_bytes;
    rc = store_request(st, &r, err, errlen);
    if (rc == OBJ_OK) {
        st->stats.downloads++;
        st->stats.download_bytes += r.got;
        if (bytes)
            *bytes = r.got;
        if (md5_hex) {
            size_t n = strnlen(r.etag, 32);
            memcpy(md5_hex, r.etag, n);
            md5_hex[n] = '\0';
        }
    }
    req_free(&r);
    return done(st, rc);
}

int objstore_delete(struct objstore *st, const char *container, const char *name, char *err,
                    size_t errlen)
{
    int rc = check_names(container, name, err, errlen);
    if (rc != OBJ_OK)
        return done(st, rc);
    struct req r;
    req_init(&r, "DELETE", container, name);
    rc = store_request(st, &r, err, errlen);
    if (rc == OBJ_NOT_FOUND)
        rc = OBJ_OK;
    req_free(&r);
    return done(st, rc);
}

/* --- listings ------------------------------------------------------------- */

struct list_state {
    objstore_list_fn fn;
    void *arg;
    long count, max;
    int over;      /* more items than max */
    int stopped;   /* fn asked to stop */
};

static int list_each(const struct objstore_item *it, void *arg)
{
    struct list_state *ls = arg;
    if (++ls->count > ls->max) {
        ls->over = 1;
        return 1;
    }
    if (ls->fn(it, ls->arg)) {
        ls->stopped = 1;
        return 1;
    }
    return 0;
}

/* A prefix may end in '/' ("dir/"): it is acceptable when it would be the
 * start of an acceptable name. */
static int prefix_ok(const char *prefix)
{
    size_t n = strlen(prefix);
    if (n == 0)
        return 1;
    char *probe = xmalloc(n + 2);
    memcpy(probe, prefix, n);
    memcpy(probe + n, "x", 2);
    int ok = n < 1024 && objstore_name_ok(probe);
    free(probe);
    return ok;
}

/* One page: the request and its parse; the marker and token advance. */
static int list_page(struct objstore *st, const char *container, const char *prefix,
                     struct list_state *ls, char **marker, char **token, int *more, char *err,
                     size_t errlen)
{
    strbuf q = STRBUF_INIT, body = STRBUF_INIT;
    struct req r;
    int s3 = st->cfg.kind == OBJSTORE_S3;
    req_init(&r, "GET", s3 ? NULL : container, NULL);
    snprintf(r.what, sizeof(r.what), "listing %s", container);
    if (s3) {
        /* Parameters in the order SigV4's canonical query sorts them. */
        strbuf_appends(&q, "");
        if (*token)
            append_query(st, &q, "continuation-token", *token);
        append_query(st, &q, "list-type", "2");
        char *full = xmalloc(strlen(container) + strlen(prefix) + 2);
        sprintf(full, "%s/%s", container, prefix);
        append_query(st, &q, "prefix", full);
        free(full);
    } else {
        append_query(st, &q, "format", "json");
        strbuf_appendf(&q, "&limit=%d", SWIFT_PAGE_LIMIT);
        if (*marker)
            append_query(st, &q, "marker", *marker);
        if (*prefix)
            append_query(st, &q, "prefix", prefix);
    }
    r.query = strbuf_cstr(&q);
    r.out_buf = &body;
    r.out_max = (uint64_t)st->cfg.max_listing_bytes;
    int rc = store_request(st, &r, err, errlen);
    if (rc == OBJ_REFUSED && r.too_big)
        snprintf(err, errlen, "%s: listing page larger than %ld bytes", r.what,
                 st->cfg.max_listing_bytes);
    struct objstore_page page = {0};
    if (rc == OBJ_OK && !s3 && r.status == 204) {
        *more = 0; /* an empty container may answer 204 without a body */
    } else if (rc == OBJ_OK) {
        const char *b = body.data ? body.data : "";
        rc = s3 ? objstore_parse_s3_page(b, body.len, container, prefix, *marker, *token,
                                         list_each, ls, &page, err, errlen)
                : objstore_parse_swift_page(b, body.len, prefix, *marker, list_each, ls, &page,
                                            err, errlen);
        if (rc == 1)
            rc = OBJ_OK; /* stopped by the callback or the item bound: see ls */
        *more = rc == OBJ_OK && !ls->over && !ls->stopped &&
                (s3 ? page.truncated : page.count + page.skipped >= SWIFT_PAGE_LIMIT);
        st->stats.skipped_names += page.skipped;
        if (page.last) {
            free(*marker);
            *marker = page.last;
            page.last = NULL;
        }
        free(*token);
        *token = page.next;
        page.next = NULL;
    }
    objstore_page_free(&page);
    strbuf_free(&q);
    strbuf_free(&body);
    req_free(&r);
    return rc;
}

int objstore_list(struct objstore *st, const char *container, const char *prefix,
                  objstore_list_fn fn, void *arg, char *err, size_t errlen)
{
    int rc = check_names(container, NULL, err, errlen);
    if (rc != OBJ_OK)
        return done(st, rc);
    prefix = prefix ? prefix : "";
    if (!prefix_ok(prefix)) {
        char q[4 * 64 + 4];
        log_quote(q, prefix, strlen(prefix), 64);
        snprintf(err, errlen, "bad listing prefix \"%s\"", q);
        return done(st, OBJ_REFUSED);
    }
    if (st->cfg.kind == OBJSTORE_S3 && (rc = s3_check_bucket(st, err, errlen)) != OBJ_OK)
        return done(st, rc);
    struct list_state ls = {.fn = fn, .arg = arg, .max = st->cfg.max_listing_items};
    char *marker = NULL, *token = NULL;
    int more = 1;
    while (rc == OBJ_OK && more)
        rc = list_page(st, container, prefix, &ls, &marker, &token, &more, err, errlen);
    if (rc == OBJ_OK && ls.over) {
        snprintf(err, errlen, "listing %s: more than %ld items", container, ls.max);
        rc = OBJ_REFUSED;
    }
    free(marker);
    free(token);
    return done(st, rc);
}
