/* objstore_config: the settings side of objstore (declared in objstore.h):
 * completing a config from the environment or from a credentials file of
 * KEY=value lines, and checking that it is complete before a handle opens. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objstore.h"
#include "strbuf.h"

/* A credentials file is a handful of lines; anything larger is not one. */
#define CONF_FILE_MAX (64 * 1024)

const char *objstore_kind_name(int kind)
{
    return kind == OBJSTORE_SWIFT ? "swift" : kind == OBJSTORE_S3 ? "s3" : "none";
}

/* The variable names both sources know, and the field each fills. */
static char **field_of(struct objstore_config *cfg, const char *name)
{
    static const struct {
        const char *name;
        size_t off;
    } vars[] = {
        {"ST_AUTH", offsetof(struct objstore_config, auth_url)},
        {"ST_USER", offsetof(struct objstore_config, user)},
        {"ST_KEY", offsetof(struct objstore_config, key)},
        {"OS_STORAGE_URL", offsetof(struct objstore_config, storage_url)},
        {"OS_AUTH_TOKEN", offsetof(struct objstore_config, token)},
        {"AWS_ENDPOINT_URL", offsetof(struct objstore_config, endpoint)},
        {"AWS_REGION", offsetof(struct objstore_config, region)},
        {"AWS_DEFAULT_REGION", offsetof(struct objstore_config, region)},
        {"AWS_ACCESS_KEY_ID", offsetof(struct objstore_config, access_key)},
        {"AWS_SECRET_ACCESS_KEY", offsetof(struct objstore_config, secret_key)},
    };
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (strcmp(vars[i].name, name) == 0)
            return (char **)((char *)cfg + vars[i].off);
    return NULL;
}

static void fill(struct objstore_config *cfg, const char *name, const char *value)
{
    char **f = field_of(cfg, name);
    if (f && !*f && value && *value)
        *f = xstrdup(value);
}

void objstore_config_from_env(struct objstore_config *cfg)
{
    static const char *const names[] = {
        "ST_AUTH",        "ST_USER",          "ST_KEY",     "OS_STORAGE_URL",
        "OS_AUTH_TOKEN",  "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION",
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        fill(cfg, names[i], getenv(names[i]));
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* A file systemd's LoadCredential= placed: in $CREDENTIALS_DIRECTORY
 * itself (a directory only the service can enter). Where the file system
 * has ACLs, systemd leaves it root's, mode 0400 plus an ACL entry for the
 * service user, which stat shows as group read (the ACL mask): allowed
 * there, and only there. */
static int systemd_credential(const char *path, const struct stat *st)
{
    const char *dir = getenv("CREDENTIALS_DIRECTORY");
    size_t n = dir ? strlen(dir) : 0;
    return n && strncmp(path, dir, n) == 0 && path[n] == '/' && !strchr(path + n + 1, '/') &&
           (st->st_mode & 077) == 040;
}

/* Reads the whole (bounded) file; the checks are made on the descriptor
 * opened, so a file swapped after a stat cannot slip through. */
static char *read_secret_file(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "not a regular file";
    else if ((st.st_mode & 077) && !systemd_credential(path, &st))
        why = "readable or writable by group or others (chmod 600 it)";
    else if (st.st_uid != geteuid() && st.st_uid != 0)
        why = "owned by another user";
    else if (st.st_size > CONF_FILE_MAX)
        why = "larger than 64 KB";
    char *buf = NULL;
    ssize_t n = 0;
    if (!why) {
        buf = xmalloc(CONF_FILE_MAX + 2);
        n = read(fd, buf, CONF_FILE_MAX + 1);
        if (n < 0)
            why = strerror(errno);
        else if (n > CONF_FILE_MAX)
            why = "larger than 64 KB";
        else if (memchr(buf, '\0', (size_t)n))
            why = "holds a NUL byte";
    }
    close(fd);
    if (why) {
        snprintf(err, errlen, "%s: %s", path, why);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

int objstore_config_from_file(struct objstore_config *cfg, const char *path, char *err,
                              size_t errlen)
{
    char *buf = read_secret_file(path, err, errlen);
    if (!buf)
        return -1;
    int rc = 0, lineno = 0;
    for (char *line = buf, *next; line && rc == 0; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        char *s = trim(line);
        if (*s == '\0' || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (eq)
            *eq = '\0';
        char *name = trim(s);
        /* An unknown key is refused, not skipped: a misspelt key would
         * otherwise leave a credential unset and fail far from its cause. */
        if (!eq || !field_of(cfg, name)) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno,
                     eq ? "unknown key (known: ST_AUTH, ST_USER, ST_KEY, OS_STORAGE_URL, "
                          "OS_AUTH_TOKEN, AWS_ENDPOINT_URL, AWS_REGION, AWS_DEFAULT_REGION, "
                          "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)"
                        : "not KEY=value");
            rc = -1;
            break;
        }
        fill(cfg, name, trim(eq + 1));
    }
    free(buf);
    return rc;
}

static int url_ok(const char *u)
{
    return u && ((strncmp(u, "http://", 7) == 0 && u[7]) || (strncmp(u, "https://", 8) == 0 && u[8]));
}

static int fail(char *err, size_t errlen, const char *why)
{
    snprintf(err, errlen, "%s", why);
    return -1;
}

static int check_swift(const struct objstore_config *cfg, char *err, size_t errlen)
{
    if (cfg->storage_url || cfg->token) {
        if (!url_ok(cfg->storage_url) || !cfg->token || !*cfg->token)
            return fail(err, errlen, "swift: a storage URL (http or https) needs a token, and a token a storage URL");
        return 0;
    }
    if (!url_ok(cfg->auth_url))
        return fail(err, errlen, "swift: no auth URL (ST_AUTH, http or https) and no storage URL and token");
    if (!cfg->user || !*cfg->user || !cfg->key || !*cfg->key)
        return fail(err, errlen, "swift: the auth URL needs a user and a key (ST_USER, ST_KEY)");
    return 0;
}

static int bucket_ok(const char *b)
{
    size_t n = b ? strlen(b) : 0;
    if (n == 0 || n > 255)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= 'A' && b[i] <= 'Z') ||
              (b[i] >= '0' && b[i] <= '9') || b[i] == '-' || b[i] == '.' || b[i] == '_'))
            return 0;
    return strcmp(b, ".") != 0 && strcmp(b, "..") != 0;
}

static int check_s3(const struct objstore_config *cfg, char *err, size_t errlen)
{
    if (!url_ok(cfg->endpoint))
        return fail(err, errlen, "s3: no endpoint URL (AWS_ENDPOINT_URL, http or https)");
    if (!bucket_ok(cfg->bucket))
        return fail(err, errlen, "s3: no bucket, or a bucket name with other than letters, digits, '-', '.', '_'");
    if (cfg->region && (!*cfg->region || strchr(cfg->region, ':') || strlen(cfg->region) > 64))
        return fail(err, errlen, "s3: bad region");
    if (!cfg->access_key || !*cfg->access_key || !cfg->secret_key || !*cfg->secret_key)
        return fail(err, errlen, "s3: no access key or secret key (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)");
    return 0;
}

int objstore_config_check(const struct objstore_config *cfg, char *err, size_t errlen)
{
    if (cfg->connect_timeout < 0 || cfg->request_timeout < 0 || cfg->retries < 0 ||
        cfg->retry_delay < 0 || cfg->run_budget < 0 || cfg->max_listing_items < 0 ||
        cfg->max_listing_bytes < 0)
        return fail(err, errlen, "objstore: negative timeout, retry count, budget or limit");
    switch (cfg->kind) {
    case OBJSTORE_NONE:
        return 0;
    case OBJSTORE_SWIFT:
        return check_swift(cfg, err, errlen);
    case OBJSTORE_S3:
        return check_s3(cfg, err, errlen);
    default:
        return fail(err, errlen, "objstore: unknown kind");
    }
}
