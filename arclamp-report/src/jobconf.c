/* jobconf: the timer jobs' YAML file, one table row. See jobconf.h. */
#include "jobconf.h"
#include "conftable.h"
#include "yamldoc.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct opt job_opts[] = {
    {"object_store", OPT_MAP, offsetof(struct job_config, store), .sub = store_config_options,
     .doc = "Swift or S3: publish run logs, tier tables and pages; draw from many hosts'"},
    {NULL},
};

static int bind_doc(struct ydoc *doc, struct job_config *cfg, char *err, size_t errlen)
{
    struct conf_ctx ctx = {doc->path, err, errlen, NULL};
    int has_root = doc->root && !ynode_is_null(doc->root);
    int rc = has_root ? conf_bind(job_opts, doc->root, cfg, "", &ctx) : 0;
    char why[768];
    if (rc == 0 && store_config_finish(&cfg->store, why, sizeof why) < 0)
        rc = conf_error(&ctx, has_root ? ynode_get(doc->root, "object_store") : NULL,
                        "object_store", "%s", why);
    ydoc_free(doc);
    if (rc < 0)
        job_config_free(cfg);
    return rc;
}

static void init(struct job_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    conf_set_defaults(job_opts, cfg);
}

int job_config_load_string(const char *name, const char *text, struct job_config *cfg,
                           char *err, size_t errlen)
{
    struct ydoc doc;
    init(cfg);
    if (ydoc_load_string(name, text, strlen(text), &doc, err, errlen) < 0) {
        job_config_free(cfg);
        return -1;
    }
    return bind_doc(&doc, cfg, err, errlen);
}

int job_config_load(const char *path, struct job_config *cfg, char *err, size_t errlen)
{
    if (!path && access(JOBCONF_DEFAULT_PATH, F_OK) == 0)
        path = JOBCONF_DEFAULT_PATH;
    init(cfg);
    if (!path)
        return 0; /* no file: no store */
    struct ydoc doc;
    if (ydoc_load_file(path, &doc, err, errlen) < 0) {
        job_config_free(cfg);
        return -1;
    }
    return bind_doc(&doc, cfg, err, errlen);
}

void job_config_free(struct job_config *cfg)
{
    store_config_free(&cfg->store);
    conf_free(job_opts, cfg);
    memset(cfg, 0, sizeof *cfg);
}

int job_config_publishes(const struct job_config *cfg)
{
    return cfg->store.conn.kind != OBJSTORE_NONE && cfg->store.publish;
}

int job_config_from_store(const struct job_config *cfg)
{
    return cfg->store.conn.kind != OBJSTORE_NONE && cfg->store.from_store;
}
