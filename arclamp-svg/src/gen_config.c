/* gen_config: the generator's option table, defaults and the checks that go
 * beyond one key. See gen_config.h. */
#include "gen_config.h"
#include "bucket.h"
#include "conftable.h"
#include "fnfilter.h"
#include "layout.h"
#include "log.h"
#include "numtext.h"
#include "palette.h"
#include "yamldoc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int bind_number(const struct opt *opt, const struct ynode *node, void *field,
                       const char *key, struct conf_ctx *ctx);
static int bind_functions(const struct opt *opt, const struct ynode *node, void *field,
                          const char *key, struct conf_ctx *ctx);
static int bind_formats(const struct opt *opt, const struct ynode *node, void *field,
                        const char *key, struct conf_ctx *ctx);

/* The functions list as the struct declares it: pointer, then count. */
struct function_list {
    struct gen_function *items;
    size_t n;
};

static const struct opt gen_opts[] = {
    {"data_dir", OPT_STRING, offsetof(struct gen_config, data_dir), LAYOUT_DATA_DIR,
     .doc = "root directory: logs/, svgs/, index.html, index.json"},
    {"logs_dir", OPT_STRING, offsetof(struct gen_config, logs_dir), NULL,
     .doc = "trace logs, <period>/<name>.log[.gz]: arclamp-log's base_path "
            "(default: <data_dir>/logs)"},
    {"svgs_dir", OPT_STRING, offsetof(struct gen_config, svgs_dir), NULL,
     .doc = "flame graphs, <period>/<name>.svgz (default: <data_dir>/svgs)"},
    {"lock_file", OPT_STRING, offsetof(struct gen_config, lock_file), NULL,
     .doc = "lock held while generate or compress runs; created 0600, in a directory only "
            "its owner may write (default: <data_dir>/" GEN_PRIVATE_DIR "/run.lock)"},
    {"lock_timeout", OPT_SECONDS, offsetof(struct gen_config, lock_timeout), "900", 0, 86400,
     .doc = "seconds generate and compress wait for the lock; then the run is skipped "
            "(exit status 75, counted in arclamp_svg_runs_skipped_total)"},
    {"log_formats", OPT_CUSTOM, offsetof(struct gen_config, log_formats), NULL,
     .custom = bind_formats,
     .doc = "arclamp-log's bucket formats (its logs[].format), to tell a log name's bucket "
            "from its tag (default: %Y-%m-%d_%H.excimer, %Y-%m-%d.excimer, the -wall "
            "variants, %Y-%m-%d_%H, %Y-%m-%d)"},
    {"title", OPT_STRING, offsetof(struct gen_config, title), "MediaWiki - {period} - {time}",
     .doc = "graph title; {period} {time} {name} {entrypoint} {samples} are replaced; "
            "the entry point and the sample count are appended when it does not show them"},
    {"font_type", OPT_STRING, offsetof(struct gen_config, font_type), "monospace",
     .doc = "font family of the graphs"},
    {"font_size", OPT_CUSTOM, offsetof(struct gen_config, font_size), "11", 4, 100,
     .custom = bind_number, .doc = "font size, px"},
    {"min_width", OPT_CUSTOM, offsetof(struct gen_config, min_width), "1", 0, 1000,
     .custom = bind_number, .doc = "boxes narrower than this many px are left out"},
    {"width", OPT_INT, offsetof(struct gen_config, width), "1200", 100, 100000,
     .doc = "image width, px"},
    {"colors", OPT_STRING, offsetof(struct gen_config, colors), "hot",
     .doc = "palette of forward graphs (as flamegraph.pl --colors)"},
    {"reversed_colors", OPT_STRING, offsetof(struct gen_config, reversed_colors), "blue",
     .doc = "palette of reversed graphs"},
    {"gzip_level", OPT_INT, offsetof(struct gen_config, gzip_level), "6", 1, 9,
     .doc = "zlib compression level of graphs and compressed logs"},
    {"log_target", OPT_STRING, offsetof(struct gen_config, log_target), "auto",
     .doc = "auto, journal or stderr"},
    {"max_stacks", OPT_INT, offsetof(struct gen_config, max_stacks), "1000000", 1, 1e9,
     .doc = "distinct stacks per graph; the samples of later new stacks are shown as one "
            "[truncated] frame (the subtitle says how many)"},
    {"max_frames", OPT_INT, offsetof(struct gen_config, max_frames), "1000000", 1, 1e9,
     .doc = "distinct frame names per graph, the same way"},
    {"max_memory_mb", OPT_INT, offsetof(struct gen_config, max_memory_mb), "96", 8, 1 << 20,
     .doc = "MiB for the tables of one log's graphs (with its per-function graphs), the same way"},
    {"max_svg_mb", OPT_INT, offsetof(struct gen_config, max_svg_mb), "32", 1, 1 << 20,
     .doc = "MiB of one SVG before gzip: deeper boxes are left out (the subtitle says so)"},
    {"max_log_read_mb", OPT_INT, offsetof(struct gen_config, max_log_read_mb), "16384", 1,
     1 << 30, .doc = "MiB of a log read (after gunzip); the graphs show what was read before "
                     "(the subtitle says so)"},
    {"functions", OPT_CUSTOM, offsetof(struct gen_config, functions), NULL,
     .custom = bind_functions,
     .doc = "per-function graphs of the all logs: list of {function: NAME, label: LABEL} "
            "(default: EditAction, PreSend, PostSend, Upload)"},
    {"sample_period", OPT_SECONDS, offsetof(struct gen_config, sample_period), "0", 0,
     GEN_SAMPLE_PERIOD_MAX,
     .doc = "seconds one sample stands for, the fleet's excimer.arclamp_period (60 by default "
            "there); 0: not known. export writes it as pprof's period and a time sample type, "
            "and weighs speedscope's samples in seconds"},
    {"sample_event", OPT_STRING, offsetof(struct gen_config, sample_event), "cpu",
     .doc = "cpu or real: the clock of that period, the fleet's excimer.arclamp_event_type"},
    {"object_store", OPT_MAP, offsetof(struct gen_config, store), .sub = store_config_options,
     .doc = "Swift or S3: publish logs, graphs and the index; draw from many hosts' logs"},
    {NULL},
};

/* Production's list (the pipeline spec), used when `functions` is absent. */
static const struct {
    const char *function, *label;
} default_functions[] = {
    {"MediaWiki\\Actions\\EditAction::show", "EditAction"},
    {"MediaWiki\\MediaWikiEntryPoint::prepareForOutput", "PreSend"},
    {"MediaWiki\\MediaWikiEntryPoint::doPostOutputShutdown", "PostSend"},
    {"UploadBase::performUpload", "Upload"},
};

/* The formats of the packaged arclamp-log.yaml, of Wikimedia's wall-clock
 * groups and of arclamp-log's examples; used when `log_formats` is absent. */
static const char *const default_formats[] = {LAYOUT_DEFAULT_FORMATS};

/* The log_formats list as the struct declares it: pointer, then count. */
struct format_list {
    char **items;
    size_t n;
};

/* In the order of gen_title's values. */
static const char *const title_placeholders[] = {"period", "time", "name", "entrypoint",
                                                 "samples"};
enum { PH_PERIOD, PH_TIME, PH_NAME, PH_ENTRYPOINT, PH_SAMPLES };

static int bind_number(const struct opt *opt, const struct ynode *node, void *field,
                       const char *key, struct conf_ctx *ctx)
{
    if (node->type != YNODE_SCALAR)
        return conf_error(ctx, node, key, "expected a number");
    char *end;
    errno = 0;
    double v = strtod(node->value, &end);
    if (errno || end == node->value || *end || !isfinite(v) || v < opt->min || v > opt->max)
        return conf_error(ctx, node, key, "expected a number from %g to %g, got \"%.100s\"",
                          opt->min, opt->max, node->value);
    *(double *)field = v;
    return 0;
}

static void free_functions(struct gen_function *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(items[i].function);
        free(items[i].label);
    }
    free(items);
}

/* Labels become part of file names and URLs: keep them plain. */
static const char *check_label(const char *label)
{
    size_t n = strlen(label);
    if (n == 0 || n > GEN_LABEL_MAX)
        return "must be 1 to 64 characters";
    if (strspn(label, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != n)
        return "may only hold letters, digits, '_' and '-'";
    return NULL;
}

static int bind_function(const struct ynode *item, struct gen_function *fn, const char *key,
                         struct conf_ctx *ctx)
{
    if (item->type != YNODE_MAP)
        return conf_error(ctx, item, key, "expected {function: NAME, label: LABEL}");
    for (size_t k = 0; k + 1 < item->nitems; k += 2) {
        const char *name = item->items[k]->value;
        if (strcmp(name, "function") && strcmp(name, "label"))
            return conf_error(ctx, item->items[k], key, "unknown key \"%.64s\"", name);
    }
    const struct ynode *function = ynode_get(item, "function");
    const struct ynode *label = ynode_get(item, "label");
    if (!function || !label)
        return conf_error(ctx, item, key, "needs both function and label");
    if (conf_parse_string(function, &fn->function, key, ctx) < 0 ||
        conf_parse_string(label, &fn->label, key, ctx) < 0)
        return -1;
    if (!fn->function || !fn->function[0] || strpbrk(fn->function, ";\n\r"))
        return conf_error(ctx, function, key, "function must be one frame name (no ';')");
    const char *why = fn->label ? check_label(fn->label) : "is empty";
    if (why)
        return conf_error(ctx, label, key, "label %s", why);
    return 0;
}

static int bind_functions(const struct opt *opt, const struct ynode *node, void *field,
                          const char *key, struct conf_ctx *ctx)
{
    (void)opt;
    struct function_list *list = field;
    free_functions(list->items, list->n);
    list->items = NULL;
    list->n = 0;
    if (ynode_is_null(node))
        return 0;
    if (node->type != YNODE_SEQ)
        return conf_error(ctx, node, key, "expected a list of {function: NAME, label: LABEL}");
    if (node->nitems > FNFILTER_MAX)
        return conf_error(ctx, node, key, "at most %d functions", FNFILTER_MAX);
    list->items = xcalloc(node->nitems ? node->nitems : 1, sizeof *list->items);
    for (size_t i = 0; i < node->nitems; i++) {
        char ikey[64];
        snprintf(ikey, sizeof ikey, "%s[%zu]", key, i);
        list->n = i + 1; /* counted first, so an error frees it too */
        if (bind_function(node->items[i], &list->items[i], ikey, ctx) < 0)
            return -1;
        for (size_t j = 0; j < i; j++) {
            if (strcmp(list->items[j].label, list->items[i].label) == 0)
                return conf_error(ctx, node->items[i], ikey, "label \"%s\" is used twice",
                                  list->items[i].label);
        }
    }
    return 0;
}

static void free_formats(char **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(items[i]);
    free(items);
}

static int bind_formats(const struct opt *opt, const struct ynode *node, void *field,
                        const char *key, struct conf_ctx *ctx)
{
    (void)opt;
    struct format_list *list = field;
    free_formats(list->items, list->n);
    list->items = NULL;
    list->n = 0;
    if (node->type != YNODE_SEQ || node->nitems == 0 || node->nitems > GEN_FORMATS_MAX)
        return conf_error(ctx, node, key, "expected a list of 1 to %d strftime formats",
                          GEN_FORMATS_MAX);
    list->items = xcalloc(node->nitems, sizeof *list->items);
    for (size_t i = 0; i < node->nitems; i++) {
        char ikey[64];
        snprintf(ikey, sizeof ikey, "%s[%zu]", key, i);
        list->n = i + 1; /* counted first, so an error frees it too */
        if (conf_parse_string(node->items[i], &list->items[i], ikey, ctx) < 0)
            return -1;
        const char *why = list->items[i] ? bucket_format_check(list->items[i]) : "is empty";
        if (why)
            return conf_error(ctx, node->items[i], ikey, "%s", why);
    }
    return 0;
}

static void set_default_formats(struct gen_config *cfg)
{
    size_t n = sizeof default_formats / sizeof default_formats[0];
    cfg->log_formats = xcalloc(n, sizeof *cfg->log_formats);
    for (size_t i = 0; i < n; i++)
        cfg->log_formats[i] = xstrdup(default_formats[i]);
    cfg->nlog_formats = n;
}

static void set_default_functions(struct gen_config *cfg)
{
    size_t n = sizeof default_functions / sizeof default_functions[0];
    cfg->functions = xcalloc(n, sizeof *cfg->functions);
    for (size_t i = 0; i < n; i++) {
        cfg->functions[i].function = xstrdup(default_functions[i].function);
        cfg->functions[i].label = xstrdup(default_functions[i].label);
    }
    cfg->nfunctions = n;
}

/* The name inside "{...}" at t (t points at '{'), or NULL; *len set. */
static const char *placeholder_at(const char *t, size_t *len)
{
    size_t n = strspn(t + 1, "abcdefghijklmnopqrstuvwxyz_");
    if (n == 0 || t[1 + n] != '}')
        return NULL;
    *len = n;
    return t + 1;
}

static int placeholder_index(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof title_placeholders / sizeof *title_placeholders; i++) {
        if (strlen(title_placeholders[i]) == len && memcmp(title_placeholders[i], name, len) == 0)
            return (int)i;
    }
    return -1;
}

static int check_title(const char *title, const struct ynode *root, struct conf_ctx *ctx)
{
    for (const char *t = strchr(title, '{'); t; t = strchr(t + 1, '{')) {
        size_t len;
        const char *name = placeholder_at(t, &len);
        if (name && placeholder_index(name, len) < 0)
            return conf_error(ctx, ynode_get(root, "title"), "title",
                              "unknown placeholder {%.*s} (known: {period} {time} {name} "
                              "{entrypoint} {samples})", (int)len, name);
    }
    return 0;
}

static void strip_trailing_slashes(char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        path[--n] = '\0';
}

static char *join(const char *dir, const char *name)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appendf(&sb, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);
    return sb.data;
}

/* `inner` is `outer` or a directory below it (as written). */
static int nested(const char *outer, const char *inner)
{
    size_t n = strlen(outer);
    if (strcmp(outer, "/") == 0)
        return 1;
    return strncmp(outer, inner, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

static int check_dir_key(char **field, const char *key, const struct ynode *root,
                         struct conf_ctx *ctx)
{
    if (*field && !(*field)[0])
        return conf_error(ctx, ynode_get(root, key), key, "must not be empty");
    if (*field)
        strip_trailing_slashes(*field);
    return 0;
}

static int check_palette(const char *name, int *out, const char *key, const struct ynode *root,
                         struct conf_ctx *ctx)
{
    int p = palette_from_name(name);
    if (p < 0)
        return conf_error(ctx, ynode_get(root, key), key, "unknown palette \"%.64s\"", name);
    *out = p;
    return 0;
}

/* The checks involving more than one key, and the derived paths. */
static int finish(struct gen_config *cfg, const struct ynode *root, const char *data_dir,
                  struct conf_ctx *ctx)
{
    if (data_dir) {
        free(cfg->data_dir);
        cfg->data_dir = xstrdup(data_dir);
        cfg->data_dir_given = 1;
    }
    if (!cfg->data_dir)
        return conf_error(ctx, ynode_get(root, "data_dir"), "data_dir", "must not be empty");
    if (check_dir_key(&cfg->data_dir, "data_dir", root, ctx) < 0 ||
        check_dir_key(&cfg->logs_dir, "logs_dir", root, ctx) < 0 ||
        check_dir_key(&cfg->svgs_dir, "svgs_dir", root, ctx) < 0 ||
        check_dir_key(&cfg->lock_file, "lock_file", root, ctx) < 0)
        return -1;
    if (!cfg->logs_dir)
        cfg->logs_dir = join(cfg->data_dir, LAYOUT_LOGS_DIR);
    if (!cfg->svgs_dir)
        cfg->svgs_dir = join(cfg->data_dir, LAYOUT_SVGS_DIR);
    if (!cfg->lock_file)
        cfg->lock_file = join(cfg->data_dir, GEN_PRIVATE_DIR "/run.lock");
    if (nested(cfg->logs_dir, cfg->svgs_dir) || nested(cfg->svgs_dir, cfg->logs_dir))
        return conf_error(ctx, ynode_get(root, "svgs_dir"), "svgs_dir",
                          "%s and logs_dir %s must be separate directories (generate removes "
                          "what it does not expect in svgs_dir)", cfg->svgs_dir, cfg->logs_dir);
    if (!cfg->title)
        cfg->title = xstrdup("");
    if (check_title(cfg->title, root, ctx) < 0 ||
        check_palette(cfg->colors, &cfg->palette, "colors", root, ctx) < 0 ||
        check_palette(cfg->reversed_colors, &cfg->reversed_palette, "reversed_colors", root,
                      ctx) < 0)
        return -1;
    if (!cfg->font_type || !cfg->font_type[0])
        return conf_error(ctx, ynode_get(root, "font_type"), "font_type", "must not be empty");
    if (!cfg->log_target || log_target_from_name(cfg->log_target) < 0)
        return conf_error(ctx, ynode_get(root, "log_target"), "log_target",
                          "expected auto, journal or stderr");
    if (!cfg->sample_event || (strcmp(cfg->sample_event, "cpu") != 0 &&
                               strcmp(cfg->sample_event, "real") != 0))
        return conf_error(ctx, ynode_get(root, "sample_event"), "sample_event",
                          "expected cpu or real");
    if (!ynode_get(root, "functions"))
        set_default_functions(cfg);
    if (!ynode_get(root, "log_formats"))
        set_default_formats(cfg);
    char why[768];
    if (store_config_finish(&cfg->store, why, sizeof why) < 0)
        return conf_error(ctx, ynode_get(root, "object_store"), "object_store", "%s", why);
    return 0;
}

static int load_doc(struct ydoc *doc, const char *data_dir, struct gen_config *cfg, char *err,
                    size_t errlen)
{
    struct conf_ctx ctx = {doc->path, err, errlen, NULL};
    int rc = 0;
    if (doc->root && !ynode_is_null(doc->root))
        rc = conf_bind(gen_opts, doc->root, cfg, "", &ctx);
    if (rc == 0)
        rc = finish(cfg, doc->root && !ynode_is_null(doc->root) ? doc->root : NULL, data_dir,
                    &ctx);
    ydoc_free(doc);
    if (rc < 0)
        gen_config_free(cfg);
    return rc;
}

static void init(struct gen_config *cfg, const char *path)
{
    memset(cfg, 0, sizeof *cfg);
    conf_set_defaults(gen_opts, cfg);
    cfg->path = path ? xstrdup(path) : NULL;
}

int gen_config_load_string(const char *name, const char *text, const char *data_dir,
                           struct gen_config *cfg, char *err, size_t errlen)
{
    struct ydoc doc = {NULL, NULL};
    init(cfg, text ? name : NULL);
    if (text && ydoc_load_string(name, text, strlen(text), &doc, err, errlen) < 0) {
        gen_config_free(cfg);
        return -1;
    }
    if (!text)
        doc.path = xstrdup(name ? name : "(defaults)");
    return load_doc(&doc, data_dir, cfg, err, errlen);
}

int gen_config_load(const char *path, const char *data_dir, struct gen_config *cfg, char *err,
                    size_t errlen)
{
    if (!path && access(GEN_CONFIG_DEFAULT_PATH, F_OK) == 0)
        path = GEN_CONFIG_DEFAULT_PATH;
    if (!path)
        return gen_config_load_string("(defaults)", NULL, data_dir, cfg, err, errlen);
    struct ydoc doc;
    init(cfg, path);
    if (ydoc_load_file(path, &doc, err, errlen) < 0) {
        gen_config_free(cfg);
        return -1;
    }
    return load_doc(&doc, data_dir, cfg, err, errlen);
}

void gen_config_free(struct gen_config *cfg)
{
    free_functions(cfg->functions, cfg->nfunctions);
    free_formats(cfg->log_formats, cfg->nlog_formats);
    store_config_free(&cfg->store);
    conf_free(gen_opts, cfg);
    free(cfg->path);
    memset(cfg, 0, sizeof *cfg);
}

void gen_config_print_help(FILE *out)
{
    fprintf(out, "Configuration keys (YAML, all optional):\n");
    conf_print_help(out, gen_opts, "");
}

/* Appends s with '_' shown as ' ' (the time part of log names). */
static void append_time(strbuf *out, const char *s)
{
    for (; *s; s++)
        strbuf_appendc(out, *s == '_' ? ' ' : *s);
}

/* Appends the template with its placeholders filled; *used gets the bit
 * (1 << PH_*) of each placeholder it holds. */
static void fill_template(strbuf *out, const char *tmpl, const struct gen_title_vars *vars,
                          unsigned *used)
{
    const char *values[] = {vars->period, vars->time, vars->name, vars->entrypoint};
    *used = 0;
    for (const char *t = tmpl; *t;) {
        size_t len;
        const char *name = *t == '{' ? placeholder_at(t, &len) : NULL;
        int i = name ? placeholder_index(name, len) : -1;
        if (i < 0) {
            strbuf_appendc(out, *t++);
            continue;
        }
        *used |= 1u << i;
        if (i == PH_SAMPLES)
            numtext_counted(out, vars->samples, "sample", "samples");
        else if (i == PH_TIME)
            append_time(out, values[i] ? values[i] : "");
        else
            strbuf_appends(out, values[i] ? values[i] : "");
        t += len + 2;
    }
}

void gen_title(strbuf *out, const char *tmpl, const struct gen_title_vars *vars)
{
    unsigned used;
    fill_template(out, tmpl, vars, &used);
    /* every graph says what it is of and how many samples it shows, also
     * under a template written before {entrypoint} and {samples} were
     * known ({name} holds the entry point too) */
    if (!(used & (1u << PH_ENTRYPOINT | 1u << PH_NAME)) && vars->entrypoint)
        strbuf_appendf(out, " - %s", vars->entrypoint);
    if (vars->label)
        strbuf_appendf(out, " - %s", vars->label);
    if (vars->reversed)
        strbuf_appends(out, " - reversed");
    if (!(used & 1u << PH_SAMPLES)) {
        strbuf_appends(out, " (");
        numtext_counted(out, vars->samples, "sample", "samples");
        strbuf_appendc(out, ')');
    }
}

void gen_diff_graph_name(strbuf *out, const char *name, int reversed)
{
    strbuf_appends(out, name);
    strbuf_appends(out, LAYOUT_DIFF);
    strbuf_appends(out, reversed ? LAYOUT_REVERSED LAYOUT_SVGZ_SUFFIX : LAYOUT_SVGZ_SUFFIX);
}

void gen_graph_name(strbuf *out, const char *name, const char *label, int reversed)
{
    strbuf_appends(out, name);
    if (label)
        strbuf_appendf(out, LAYOUT_FN_PREFIX "%s", label);
    strbuf_appends(out, reversed ? LAYOUT_REVERSED LAYOUT_SVGZ_SUFFIX : LAYOUT_SVGZ_SUFFIX);
}
