/* ingestfx: the ingest test fixture. See ingestfx.h. */
#include "ingestfx.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strbuf.h"
#include "test-suites.h"

void fx_prepare(struct fx *fx)
{
    memset(fx, 0, sizeof *fx);
    fx->tmp = tmpdir_make();
    fx->base = path_join(fx->tmp, "a/b/base");
}

void make_dirs(struct fx *fx, const char *period)
{
    char *a = path_join(fx->tmp, "a");
    char *b = path_join(fx->tmp, "a/b");
    char *p = path_join(fx->base, period);
    mkdir(a, 0755);
    mkdir(b, 0755);
    mkdir(fx->base, 0755);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    free(a);
    free(b);
    free(p);
}

void fx_start(struct fx *fx, const char *yaml)
{
    strbuf text = STRBUF_INIT;
    strbuf_appendf(&text, "base_path: %s\n", fx->base);
    strbuf_appends(&text, yaml);
    char err[512];
    ck_assert_msg(config_load_string("t.yaml", strbuf_cstr(&text), &fx->cfg, err, sizeof err) == 0,
                  "config refused: %s", err);
    strbuf_free(&text);
    ingest_init(&fx->in, &fx->cfg, &fx->st);
}

void fx_init(struct fx *fx, const char *yaml)
{
    fx_prepare(fx);
    fx_start(fx, yaml);
}

void fx_free(struct fx *fx)
{
    ingest_free(&fx->in);
    config_free(&fx->cfg);
    free(fx->base);
    tmpdir_remove(fx->tmp);
}

void send_msg(struct fx *fx, const char *msg, unsigned long long groups, time_t now,
              double mono)
{
    ingest_message(&fx->in, msg, strlen(msg), groups, INPUT_SOCKET, now, mono, 0);
}

char *read_rel(struct fx *fx, const char *rel)
{
    char *path = path_join(fx->base, rel);
    char *text = file_read(path, NULL);
    free(path);
    return text;
}

void write_rel(struct fx *fx, const char *rel, const char *data)
{
    char *path = path_join(fx->base, rel);
    file_write(path, data, strlen(data));
    free(path);
}

void write_rel_at(struct fx *fx, const char *rel, const char *data, time_t mtime)
{
    char *path = path_join(fx->base, rel);
    file_write(path, data, strlen(data));
    file_set_mtime(path, mtime);
    free(path);
}

void assert_rel(struct fx *fx, const char *rel, const char *want)
{
    char *text = read_rel(fx, rel);
    ck_assert_msg(text != NULL, "%s missing", rel);
    ck_assert_str_eq(text, want);
    free(text);
}

int exists_rel(struct fx *fx, const char *rel)
{
    char *path = path_join(fx->base, rel);
    int rc = path_exists(path);
    free(path);
    return rc;
}

int count_rel(struct fx *fx, const char *rel)
{
    char *path = path_join(fx->base, rel);
    int n = dir_count_entries(path);
    free(path);
    return n;
}
