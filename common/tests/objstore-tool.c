/* objstore-tool: a command-line driver of objstore for the live tests
 * (test_objstore_live.py): one call per run, against a real store or a
 * lying server. Not installed; built by `make check-build`.
 *
 *   objstore-tool [options] put CONTAINER NAME FILE
 *                           get CONTAINER NAME OUTFILE
 *                           list CONTAINER [PREFIX]   (name TAB hash TAB bytes TAB last_modified_s)
 *                           delete CONTAINER NAME
 *                           ensure CONTAINER
 * Swift from ST_AUTH/ST_USER/ST_KEY (or OS_STORAGE_URL/OS_AUTH_TOKEN); with
 * --s3 --bucket B [--path-style] from AWS_* and S3_ENDPOINT/AWS_ENDPOINT_URL.
 * Exit: 0 OBJ_OK, 1 OBJ_ERR, 2 OBJ_REFUSED, 3 OBJ_NOT_FOUND, 64 usage. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "objstore.h"

struct opts {
    struct objstore_config cfg;
    struct objstore_put put;
    uint64_t max;
    const char *args[4];
    int nargs;
};

static int usage(void)
{
    fprintf(stderr, "usage: objstore-tool [--s3 --bucket B [--path-style]] [--run-budget S] "
                    "[--retries N] [--retry-delay S] [--request-timeout S] [--connect-timeout S] "
                    "[--max-listing-bytes N] [--max-listing-items N] [--type T] [--encoding E] "
                    "[--delete-after S] [--max BYTES] put|get|list|delete|ensure ARGS...\n");
    return 64;
}

/* Options with a value; 0 when `name` is not one of them. */
static int set_option(struct opts *o, const char *name, const char *v)
{
    struct objstore_config *c = &o->cfg;
    if (!strcmp(name, "--bucket"))
        c->bucket = strdup(v);
    else if (!strcmp(name, "--run-budget"))
        c->run_budget = atof(v);
    else if (!strcmp(name, "--retries"))
        c->retries = atol(v);
    else if (!strcmp(name, "--retry-delay"))
        c->retry_delay = atof(v);
    else if (!strcmp(name, "--request-timeout"))
        c->request_timeout = atof(v);
    else if (!strcmp(name, "--connect-timeout"))
        c->connect_timeout = atof(v);
    else if (!strcmp(name, "--max-listing-bytes"))
        c->max_listing_bytes = atol(v);
    else if (!strcmp(name, "--max-listing-items"))
        c->max_listing_items = atol(v);
    else if (!strcmp(name, "--type"))
        o->put.content_type = v;
    else if (!strcmp(name, "--encoding"))
        o->put.content_encoding = v;
    else if (!strcmp(name, "--delete-after"))
        o->put.delete_after = atoll(v);
    else if (!strcmp(name, "--max"))
        o->max = strtoull(v, NULL, 10);
    else
        return 0;
    return 1;
}

static int parse_args(struct opts *o, int argc, char **argv)
{
    o->cfg.kind = OBJSTORE_SWIFT;
    o->cfg.retry_delay = 0.2;
    o->max = 1ull << 30;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--s3"))
            o->cfg.kind = OBJSTORE_S3;
        else if (!strcmp(argv[i], "--path-style"))
            o->cfg.path_style = 1;
        else if (!strncmp(argv[i], "--", 2) && i + 1 < argc && set_option(o, argv[i], argv[i + 1]))
            i++;
        else if (!strncmp(argv[i], "--", 2) || o->nargs == 4)
            return -1;
        else
            o->args[o->nargs++] = argv[i];
    }
    if (o->cfg.kind == OBJSTORE_S3 && !getenv("AWS_ENDPOINT_URL") && getenv("S3_ENDPOINT"))
        o->cfg.endpoint = strdup(getenv("S3_ENDPOINT"));
    objstore_config_from_env(&o->cfg);
    return o->nargs >= 2 ? 0 : -1;
}

static int print_item(const struct objstore_item *it, void *arg)
{
    (void)arg;
    printf("%s\t%s\t%llu\t%lld\n", it->name, it->hash, (unsigned long long)it->bytes,
           (long long)it->last_modified_s);
    return 0;
}

static int run(struct objstore *st, struct opts *o, char *err, size_t errlen)
{
    const char *cmd = o->args[0], *c = o->args[1], *name = o->args[2];
    if (!strcmp(cmd, "ensure") && o->nargs == 2)
        return objstore_ensure_container(st, c, err, errlen);
    if (!strcmp(cmd, "list") && o->nargs <= 3)
        return objstore_list(st, c, name, print_item, NULL, err, errlen);
    if (!strcmp(cmd, "delete") && o->nargs == 3)
        return objstore_delete(st, c, name, err, errlen);
    if (o->nargs != 4)
        return 64;
    if (!strcmp(cmd, "put")) {
        int fd = open(o->args[3], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            perror(o->args[3]);
            return 64;
        }
        char md5[33];
        int rc = objstore_put_fd(st, c, name, fd, &o->put, md5, err, errlen);
        if (rc == OBJ_OK)
            printf("%s\n", md5);
        close(fd);
        return rc;
    }
    if (!strcmp(cmd, "get")) {
        int fd = open(o->args[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
            perror(o->args[3]);
            return 64;
        }
        uint64_t bytes = 0;
        char md5[33];
        int rc = objstore_get_fd(st, c, name, fd, o->max, &bytes, md5, err, errlen);
        if (rc == OBJ_OK)
            printf("%llu\t%s\n", (unsigned long long)bytes, md5);
        close(fd);
        return rc;
    }
    return 64;
}

/* The config's strings are this program's (objstore_open copied them). */
static void free_config(struct objstore_config *c)
{
    char *fields[] = {c->auth_url, c->user,   c->key,        c->storage_url, c->token,
                      c->endpoint, c->region, c->bucket,     c->access_key,  c->secret_key,
                      c->ca_file};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        free(fields[i]);
}

int main(int argc, char **argv)
{
    struct opts o = {0};
    if (parse_args(&o, argc, argv) != 0) {
        free_config(&o.cfg);
        return usage();
    }
    char err[1024] = "";
    struct objstore *st = objstore_open(&o.cfg, err, sizeof(err));
    free_config(&o.cfg);
    if (!st) {
        fprintf(stderr, "objstore-tool: %s\n", err);
        return 64;
    }
    int rc = run(st, &o, err, sizeof(err));
    const struct objstore_stats *s = objstore_stats(st);
    fprintf(stderr, "stats: skipped_names=%llu requests=%llu retries=%llu failures=%llu\n",
            (unsigned long long)s->skipped_names, (unsigned long long)s->requests,
            (unsigned long long)s->retries,
            (unsigned long long)s->failures);
    objstore_close(st);
    if (rc == 64)
        return usage();
    if (rc != OBJ_OK)
        fprintf(stderr, "objstore-tool: %s\n", err);
    return rc == OBJ_OK ? 0 : rc == OBJ_ERR ? 1 : rc == OBJ_REFUSED ? 2 : 3;
}
