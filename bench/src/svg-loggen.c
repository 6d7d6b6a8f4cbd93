/* svg-loggen: seeded generator of realistic MediaWiki-like trace logs for the
 * arclamp-svg benchmark.
 *
 * Writes collapsed stacks, one sample per line: "FRAME;FRAME;...;LEAF COUNT".
 * The first frame is an entry point file (index/api/rest/load/RunJobs/thumb
 * with production-like weights, 15% of stacks on the previous branch
 * php-1.44.0-wmf.2), then the entry point's fixed frames, then a walk down a
 * synthetic call graph: a few thousand functions (namespaced methods, legacy
 * classes, closures {closure:/srv/mediawiki/php-.../File.php(LINE)}, file-scope
 * paths, internal callback functions such as array_map) grouped in modules,
 * each calling a few fixed callees with skewed probabilities, so stacks share
 * long prefixes as real ones do. 15 to 80 frames, about 2 KB a line; the last
 * frame is often an internal function (preg_match, mysqli::query, ...).
 *
 * --distinct K distinct stacks are generated up front (deduplicated), then
 * every line draws one of them Zipf-distributed (rank r with weight r^-S,
 * --zipf S), so popular stacks repeat. Counts: 1 on about 93% of lines, else a
 * small integer (2, 3, ... geometric). The same options and seed give the same
 * bytes (own PRNG: splitmix64; no rand()).
 *
 * --stats prints to stderr what was written: line length distribution,
 * frames, distinct stacks present, share of count-1 lines, entry points, and
 * an XXH3 hash of the output (to check determinism).
 *
 * Exit status: 0 on success, 1 on a write or memory error, 64 for bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "bench_util.h"

#define EX_USAGE_CODE 64
#define LOGGEN_VERSION "svg-loggen 1"
#define MAX_STACK 8192          /* bytes of one stack, well above 80 frames */
#define OUT_BUF (4u << 20)      /* output buffer */
#define MIN_FRAMES 15
#define MAX_FRAMES 80
#define NFUNCS 4096             /* functions of the synthetic code base */
#define MAX_CALLEES 6
#define LEN_HIST 16384          /* line length histogram, bytes */
#define BRANCH_NEW "wmf.3"
#define BRANCH_OLD "wmf.2"

struct options {
    unsigned long long lines;
    uint64_t seed;
    unsigned long distinct;
    double zipf;
    const char *output;
    int stats;
};

/* ---- PRNG: splitmix64 (sequential stream) and a stateless mixer ---- */

static uint64_t rng_state;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rng_next(void)
{
    return mix64(rng_state += 0x9e3779b97f4a7c15ULL);
}

static unsigned rng_below(unsigned n)
{
    return (unsigned)(((rng_next() >> 32) * (uint64_t)n) >> 32);
}

static double rng_unit(void)   /* [0, 1) */
{
    return (double)(rng_next() >> 11) * 0x1.0p-53;
}

static uint64_t graph_seed;

/* A fixed property of (a, b) for this seed: the call graph does not depend on
 * the order in which stacks are generated. */
static uint64_t hash2(uint64_t a, uint64_t b)
{
    return mix64(graph_seed ^ mix64(a * 0x9e3779b97f4a7c15ULL + b + 1));
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(arr) ((arr)[rng_below((unsigned)NELEM(arr))])

/* ---- vocabulary ---- */

struct module {
    const char *ns;    /* namespace, "" for legacy global classes */
    const char *dir;   /* source directory below /srv/mediawiki/php-X/ */
};

static const struct module modules[] = {
    {"", "includes"},
    {"", "includes/parser"},
    {"MediaWiki\\Revision", "includes/Revision"},
    {"MediaWiki\\Storage", "includes/Storage"},
    {"MediaWiki\\Parser", "includes/parser"},
    {"MediaWiki\\Parser\\Parsoid", "includes/parser/Parsoid"},
    {"MediaWiki\\Page", "includes/page"},
    {"MediaWiki\\Title", "includes/title"},
    {"MediaWiki\\User", "includes/user"},
    {"MediaWiki\\User\\Options", "includes/user/Options"},
    {"MediaWiki\\HookContainer", "includes/HookContainer"},
    {"MediaWiki\\Permissions", "includes/Permissions"},
    {"MediaWiki\\Linker", "includes/linker"},
    {"MediaWiki\\Language", "includes/language"},
    {"MediaWiki\\Languages", "includes/languages"},
    {"MediaWiki\\Output", "includes/Output"},
    {"MediaWiki\\Skin", "includes/skins"},
    {"MediaWiki\\Cache", "includes/cache"},
    {"MediaWiki\\Content", "includes/content"},
    {"MediaWiki\\Session", "includes/session"},
    {"MediaWiki\\Api", "includes/api"},
    {"MediaWiki\\ResourceLoader", "includes/ResourceLoader"},
    {"MediaWiki\\Rest\\Handler", "includes/Rest/Handler"},
    {"MediaWiki\\JobQueue", "includes/jobqueue"},
    {"MediaWiki\\Deferred", "includes/deferred"},
    {"MediaWiki\\Message", "includes/Message"},
    {"MediaWiki\\Html", "includes/Html"},
    {"MediaWiki\\Config", "includes/config"},
    {"MediaWiki\\Registration", "includes/registration"},
    {"Wikimedia\\Rdbms", "includes/libs/rdbms/database"},
    {"Wikimedia\\Rdbms\\Platform", "includes/libs/rdbms/platform"},
    {"Wikimedia\\ObjectCache", "includes/libs/objectcache"},
    {"Wikimedia\\Message", "includes/libs/Message"},
    {"Wikimedia\\Stats", "includes/libs/Stats"},
    {"Wikimedia\\Services", "vendor/wikimedia/services/src"},
    {"Wikimedia\\Parsoid\\Wt2Html", "vendor/wikimedia/parsoid/src/Wt2Html"},
    {"Wikimedia\\Parsoid\\Wt2Html\\TT", "vendor/wikimedia/parsoid/src/Wt2Html/TT"},
    {"Wikimedia\\Parsoid\\Html2Wt", "vendor/wikimedia/parsoid/src/Html2Wt"},
    {"Wikimedia\\RemexHtml\\Tokenizer", "vendor/wikimedia/remex-html/src/Tokenizer"},
    {"Wikimedia\\RemexHtml\\TreeBuilder", "vendor/wikimedia/remex-html/src/TreeBuilder"},
    {"Wikibase\\Lib\\Store", "extensions/Wikibase/lib/includes/Store"},
    {"Wikibase\\Client\\Hooks", "extensions/Wikibase/client/includes/Hooks"},
    {"Wikibase\\DataModel\\Services\\Lookup", "extensions/Wikibase/lib/packages/wikibase/data-model-services/src/Lookup"},
    {"MediaWiki\\Extension\\AbuseFilter", "extensions/AbuseFilter/includes"},
    {"MediaWiki\\Extension\\AbuseFilter\\Parser", "extensions/AbuseFilter/includes/Parser"},
    {"MediaWiki\\Extension\\Scribunto\\Engines\\LuaSandbox", "extensions/Scribunto/includes/Engines/LuaSandbox"},
    {"MediaWiki\\Extension\\Scribunto\\Engines\\LuaCommon", "extensions/Scribunto/includes/Engines/LuaCommon"},
    {"MediaWiki\\Extension\\CentralAuth\\User", "extensions/CentralAuth/includes/User"},
    {"MediaWiki\\Extension\\EventBus", "extensions/EventBus/includes"},
    {"MediaWiki\\Extension\\Cite", "extensions/Cite/src"},
    {"MediaWiki\\Extension\\TemplateData", "extensions/TemplateData/includes"},
    {"MediaWiki\\Extension\\Echo", "extensions/Echo/includes"},
    {"MediaWiki\\Extension\\Math", "extensions/Math/src"},
    {"MediaWiki\\Extension\\DiscussionTools", "extensions/DiscussionTools/includes"},
    {"MediaWiki\\Minerva", "skins/MinervaNeue/includes"},
    {"MediaWiki\\Skins\\Vector", "skins/Vector/includes"},
    {"GuzzleHttp\\Handler", "vendor/guzzlehttp/guzzle/src/Handler"},
    {"GuzzleHttp\\Promise", "vendor/guzzlehttp/promises/src"},
    {"Symfony\\Component\\Yaml", "vendor/symfony/yaml"},
    {"Composer\\Autoload", "vendor/composer"},
};
#define NMODULES NELEM(modules)

static const char *const classes[] = {
    "RevisionStore", "RevisionRenderer", "RevisionStoreRecord", "SqlBlobStore",
    "NameTableStore", "BlobStoreFactory", "ParserOutput", "ParserCache", "Parser",
    "PPFrame_Hash", "PPTemplateFrame_Hash", "Preprocessor_Hash", "CoreParserFunctions",
    "StripState", "LinkHolderArray", "Sanitizer", "WikiPage", "PageStore",
    "PageProps", "TitleFormatter", "MediaWikiTitleCodec", "TitleParser", "Title",
    "UserFactory", "UserOptionsManager", "UserGroupManager", "UserNameUtils",
    "PermissionManager", "RestrictionStore", "LinkRenderer", "LinkBatch",
    "LinkCache", "Language", "LanguageConverter", "LanguageFactory", "OutputPage",
    "SkinTemplate", "SkinComponentRegistry", "LoadBalancer", "LBFactoryMulti",
    "Database", "DatabaseMySQL", "SelectQueryBuilder", "SQLPlatform",
    "TransactionManager", "WANObjectCache", "MemcachedPeclBagOStuff",
    "MultiWriteBagOStuff", "HashBagOStuff", "HookRunner", "HookContainer",
    "ContentHandler", "WikitextContentHandler", "WikitextContent",
    "SessionManager", "SessionBackend", "ExtensionRegistry", "ServiceContainer",
    "LocalisationCache", "MessageCache", "MessageFormatter", "TemplateParser",
    "FilterRunner", "FilterEvaluator", "RuleChecker", "ApiMain", "ApiQuery",
    "ApiQueryRevisions", "ApiPageSet", "ApiResult", "ResourceLoader", "Module",
    "FileModule", "WikiModule", "StartUpModule", "ClientHtml", "JobRunner",
    "RefreshLinksJob", "HTMLCacheUpdateJob", "DeferredUpdates", "LinksUpdate",
    "CdnCacheUpdate", "EntityLookup", "EntityRevisionLookup", "CachingPropertyInfoLookup",
    "LuaEngine", "LuaInterpreter", "TitleLibrary", "CentralAuthUser", "EventFactory",
    "Tokenizer", "TreeBuilder", "InBody", "DOMPostProcessor", "PegTokenizer",
    "TokenTransformManager", "AttributeExpander", "Html", "Xml", "Message",
    "Config", "GlobalVarConfig", "CurlMultiHandler", "CurlFactory", "Promise",
    "ClassLoader", "Inline", "Parser_Hash", "StatsFactory", "CounterMetric",
};

static const char *const methods[] = {
    "get", "execute", "run", "load", "fetch", "getContent", "newFromRow",
    "query", "select", "selectRow", "selectField", "doQuery", "doSingleStatementQuery",
    "getWithSetCallback", "fetchOrRegenerate", "getRevisionByTitle", "getRevisionById",
    "loadSlotRecords", "getSlot", "render", "parse", "recursiveTagParse",
    "expand", "callParserFunction", "braceSubstitution", "replaceVariables",
    "internalParse", "handleInternalLinks2", "doBlockLevels", "getConnection",
    "getConnectionInternal", "getReaderIndex", "getPrimaryPos", "userCan",
    "getPermissionErrors", "checkQuickPermissions", "getOption", "loadUserOptions",
    "makeLink", "makeKnownLink", "formatNum", "msg", "text", "parseAsBlock",
    "addParserOutput", "getValue", "onBeforePageDisplay", "onParserFirstCallInit",
    "onOutputPageParserOutput", "callHook", "run", "getService", "createService",
    "loadItem", "getMessage", "getMsgFromNamespace", "doWork", "__construct",
    "__call", "getCachedParserOutput", "resolveKey", "fetchBlob", "getBlob",
    "expandBlob", "decompressData", "getMulti", "getWithToken", "doGet", "set",
    "add", "merge", "lock", "unlock", "getRow", "getId", "getLatestRevID",
    "exists", "isRedirect", "getPrefixedText", "getFullURL", "getLocalURL",
    "escapeId", "normalizeCss", "removeSomeTags", "element", "rawElement",
    "openElement", "headElement", "getHTML", "getText", "runOutputPipeline",
    "transform", "process", "processToken", "onAny", "onTag", "insertToken",
    "consume", "matchRule", "evaluate", "doCall", "callFunction", "getEntity",
    "getEntityRevision", "autoload", "loadClass", "includeFile", "invoke",
    "wait", "tick", "execute_query", "newFromTitle", "newFromId", "factory",
    "getInstance", "initialise", "getAll", "buildContentRegistry", "newSelectQueryBuilder",
    "fetchResultSet", "fetchRow", "doCommit", "getScript", "getStyles",
    "makeModuleResponse", "getVersionHash", "getModuleContent", "buildContent",
};

static const char *const callback_functions[] = {
    "array_map", "call_user_func_array", "call_user_func", "usort", "uasort",
    "array_filter", "preg_replace_callback", "array_walk", "iterator_to_array",
    "spl_autoload_call", "Closure::fromCallable", "ReflectionMethod::invokeArgs",
};

static const char *const internals[] = {
    "preg_match", "preg_replace", "preg_split", "preg_match_all", "mysqli::query",
    "mysqli_result::fetch_object", "mysqli_result::fetch_assoc", "mysqli::real_escape_string",
    "Memcached::getMulti", "Memcached::get", "Memcached::set", "Memcached::add",
    "strtr", "str_replace", "htmlspecialchars", "hash", "md5", "sha1", "crc32",
    "json_encode", "json_decode", "unserialize", "serialize", "igbinary_unserialize",
    "LuaSandboxFunction::call", "LuaSandbox::loadString", "LuaSandbox::callFunction",
    "gzinflate", "gzdeflate", "file_exists", "is_file", "file_get_contents",
    "curl_multi_exec", "curl_multi_select", "Normalizer::normalize", "mb_strtolower",
    "mb_substr", "mb_strlen", "strlen", "implode", "explode", "array_merge",
    "array_key_exists", "in_array", "sprintf", "microtime", "hrtime", "ucfirst",
    "DOMDocument::loadHTML", "DOMDocument::saveHTML", "DOMElement::setAttribute",
    "iterator_apply", "str_starts_with", "strpos", "substr", "rawurlencode",
    "Redis::get", "Redis::set", "apcu_fetch", "apcu_store", "stream_select",
    "fread", "fwrite", "opcache_get_status", "random_int", "intl_get_error_code",
};

static const char *const file_scope[] = {
    "/srv/mediawiki/php-1.44.0-wmf.3/includes/WebStart.php",
    "/srv/mediawiki/php-1.44.0-wmf.3/includes/Setup.php",
    "/srv/mediawiki/php-1.44.0-wmf.3/includes/ServiceWiring.php",
    "/srv/mediawiki/php-1.44.0-wmf.3/LocalSettings.php",
    "/srv/mediawiki/wmf-config/CommonSettings.php",
    "/srv/mediawiki/wmf-config/InitialiseSettings.php",
    "/srv/mediawiki/wmf-config/etcd.php",
    "/srv/mediawiki/php-1.44.0-wmf.3/vendor/autoload.php",
    "/srv/mediawiki/php-1.44.0-wmf.3/vendor/composer/autoload_real.php",
};

struct entry_point {
    const char *file;
    const char *tag;
    const char *prefix;   /* the frames after the file, joined by ';' */
    unsigned weight;      /* per mille */
};

static const struct entry_point entry_points[] = {
    {"/srv/mediawiki/php-1.44.0-wmf.3/index.php", "index",
     "MediaWiki\\MediaWikiEntryPoint::run;"
     "MediaWiki\\Actions\\ActionEntryPoint::execute;"
     "MediaWiki\\Actions\\ActionEntryPoint::main;"
     "MediaWiki\\Actions\\ActionEntryPoint::performRequest;"
     "MediaWiki\\Actions\\ActionEntryPoint::performAction", 400},
    {"/srv/mediawiki/php-1.44.0-wmf.3/api.php", "api",
     "MediaWiki\\MediaWikiEntryPoint::run;MediaWiki\\Api\\ApiEntryPoint::execute;"
     "MediaWiki\\Api\\ApiMain::execute;MediaWiki\\Api\\ApiMain::executeActionWithErrorHandling;"
     "MediaWiki\\Api\\ApiMain::executeAction", 340},
    {"/srv/mediawiki/php-1.44.0-wmf.3/load.php", "load",
     "MediaWiki\\MediaWikiEntryPoint::run;"
     "MediaWiki\\ResourceLoader\\ResourceLoaderEntryPoint::execute;"
     "MediaWiki\\ResourceLoader\\ResourceLoader::respond", 90},
    {"/srv/mediawiki/php-1.44.0-wmf.3/rest.php", "rest",
     "MediaWiki\\MediaWikiEntryPoint::run;MediaWiki\\Rest\\EntryPoint::execute;"
     "MediaWiki\\Rest\\Router::execute;MediaWiki\\Rest\\Router::executeHandler", 80},
    {"/srv/mediawiki/rpc/RunJobs.php", "RunJobs",
     "MediaWiki\\JobQueue\\JobRunner::run;MediaWiki\\JobQueue\\JobRunner::executeJob", 60},
    {"/srv/mediawiki/php-1.44.0-wmf.3/thumb.php", "thumb",
     "MediaWiki\\MediaWikiEntryPoint::run;"
     "MediaWiki\\FileRepo\\ThumbnailEntryPoint::execute;"
     "MediaWiki\\FileRepo\\ThumbnailEntryPoint::handleRequest;"
     "MediaWiki\\FileRepo\\ThumbnailEntryPoint::streamThumb", 30},
};
#define NENTRY NELEM(entry_points)

/* Start-up path taken by some requests before the entry point's own frames. */
static const char setup_prefix[] =
    "/srv/mediawiki/php-1.44.0-wmf.3/includes/WebStart.php;"
    "/srv/mediawiki/php-1.44.0-wmf.3/includes/Setup.php;"
    "/srv/mediawiki/wmf-config/CommonSettings.php";

/* ---- the synthetic code base: functions and their callees ---- */

struct func {
    char *name;
    unsigned len;
    unsigned module;
    unsigned ncallees;   /* 1..MAX_CALLEES */
    unsigned nleaves;    /* internal functions it calls, 1..4 */
    int is_leafy;        /* often the last frame (does real work itself) */
};

static struct func funcs[NFUNCS];
static unsigned module_start[NMODULES + 1];

static char *xstrdup_len(const char *s, size_t len)
{
    char *p = malloc(len + 1);
    if (!p) {
        fprintf(stderr, "svg-loggen: out of memory\n");
        exit(1);
    }
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

/* Fills funcs[] module by module (contiguous ranges, sizes drawn by the
 * PRNG) with names of the kinds a production profile shows. */
static void build_code_base(void)
{
    char buf[512];
    unsigned f = 0;
    for (unsigned m = 0; m < NMODULES; m++) {
        module_start[m] = f;
        unsigned remaining = (unsigned)(NMODULES - m), avg = (NFUNCS - f) / remaining;
        unsigned size = m + 1 == NMODULES ? NFUNCS - f : avg / 2 + rng_below(avg + 1);
        if (size < 1)
            size = 1;
        if (size > NFUNCS - f - (remaining - 1))
            size = NFUNCS - f - (remaining - 1);
        const struct module *mod = &modules[m];
        /* a module has a handful of classes */
        const char *cls[8];
        unsigned ncls = 3 + rng_below(6);
        for (unsigned c = 0; c < ncls; c++)
            cls[c] = PICK(classes);
        for (unsigned i = 0; i < size && f < NFUNCS; i++, f++) {
            unsigned kind = rng_below(100);
            const char *c = cls[rng_below(ncls)];
            int n;
            if (kind < 8)
                n = snprintf(buf, sizeof buf, "{closure:/srv/mediawiki/php-1.44.0-wmf.3/%s/%s.php(%u)}",
                             mod->dir, c, 20 + rng_below(2500));
            else if (kind < 10)
                n = snprintf(buf, sizeof buf, "/srv/mediawiki/php-1.44.0-wmf.3/%s/%s.php", mod->dir, c);
            else if (kind < 11)
                n = snprintf(buf, sizeof buf, "%s", PICK(file_scope));
            else if (kind < 17)
                n = snprintf(buf, sizeof buf, "%s", PICK(callback_functions));
            else if (mod->ns[0] == '\0')
                n = snprintf(buf, sizeof buf, "%s::%s", c, PICK(methods));
            else
                n = snprintf(buf, sizeof buf, "%s\\%s::%s", mod->ns, c, PICK(methods));
            funcs[f].name = xstrdup_len(buf, (size_t)n);
            funcs[f].len = (unsigned)n;
            funcs[f].module = m;
            /* call fan-out: many functions call one or two others */
            unsigned r = rng_below(100);
            funcs[f].ncallees = r < 30 ? 1 : r < 55 ? 2 : r < 75 ? 3 : 3 + rng_below(MAX_CALLEES - 2);
            funcs[f].nleaves = 1 + rng_below(4);
            funcs[f].is_leafy = rng_below(100) < 35;
        }
    }
    module_start[NMODULES] = f;
}

/* The j-th callee of function f: mostly in the same module, sometimes
 * anywhere (hooks, services, the database layer). */
static unsigned callee(unsigned f, unsigned j)
{
    uint64_t h = hash2(f, j);
    unsigned m = funcs[f].module;
    if ((h & 0xff) < 140) {
        unsigned lo = module_start[m], n = module_start[m + 1] - lo;
        return lo + (unsigned)((h >> 8) % n);
    }
    return (unsigned)((h >> 8) % NFUNCS);
}

static const char *leaf_of(unsigned f, unsigned j)
{
    return internals[hash2(f + NFUNCS, j) % NELEM(internals)];
}

/* Picks an index below n with weight 1/(j+1)^2: the first callee is by far
 * the most common, as in real call graphs. */
static unsigned skewed_below(unsigned n)
{
    static const double w[MAX_CALLEES + 1] = {1.0, 0.25, 1.0 / 9, 1.0 / 16, 1.0 / 25, 1.0 / 36, 1.0 / 49};
    double total = 0;
    for (unsigned j = 0; j < n; j++)
        total += w[j];
    double u = rng_unit() * total;
    for (unsigned j = 0; j < n; j++) {
        if (u < w[j])
            return j;
        u -= w[j];
    }
    return n - 1;
}

/* ---- stack generation ---- */

struct stackbuf {
    char b[MAX_STACK];
    size_t len;
    unsigned frames;
};

static void put(struct stackbuf *s, const char *p, size_t n)
{
    if (s->len + n + 1 >= MAX_STACK)
        return;
    if (s->len)
        s->b[s->len++] = ';';
    memcpy(s->b + s->len, p, n);
    s->len += n;
    s->frames++;
}

static void put_frames(struct stackbuf *s, const char *joined)
{
    const char *p = joined;
    for (;;) {
        const char *e = strchr(p, ';');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        put(s, p, n);
        if (!e)
            break;
        p = e + 1;
    }
}

static unsigned pick_entry(void)
{
    unsigned r = rng_below(1000), acc = 0;
    for (unsigned i = 0; i < NENTRY; i++) {
        acc += entry_points[i].weight;
        if (r < acc)
            return i;
    }
    return 0;
}

/* Frames in a stack: 15..80, mostly 25..60 (mean about 42). */
static unsigned pick_depth(void)
{
    double u = (rng_unit() + rng_unit() + rng_unit()) / 3.0;
    u *= 0.6 + 0.4 * u;
    return MIN_FRAMES + (unsigned)(u * (MAX_FRAMES - MIN_FRAMES + 1));
}

/* Replaces every "wmf.3" by "wmf.2" (same length): the previous branch. */
static void old_branch(struct stackbuf *s)
{
    char *p = s->b, *end = s->b + s->len;
    while ((p = memmem(p, (size_t)(end - p), BRANCH_NEW, sizeof BRANCH_NEW - 1)) != NULL) {
        memcpy(p, BRANCH_OLD, sizeof BRANCH_OLD - 1);
        p += sizeof BRANCH_OLD - 1;
    }
}

/* One stack: entry point, its frames, a walk down the call graph. */
static void make_stack(struct stackbuf *s, unsigned *entry)
{
    unsigned e = pick_entry();
    const struct entry_point *ep = &entry_points[e];
    unsigned depth = pick_depth();
    s->len = 0;
    s->frames = 0;
    *entry = e;
    put(s, ep->file, strlen(ep->file));
    if (rng_below(100) < 4)
        put_frames(s, setup_prefix);   /* start-up work, then anything */
    else
        put_frames(s, ep->prefix);
    /* the entry point (or set-up) calls a few dozen top-level functions */
    unsigned f = (unsigned)(hash2(0xe17 + e + (s->frames > 4 ? 0 : 100), skewed_below(MAX_CALLEES) +
                                  MAX_CALLEES * rng_below(6)) % NFUNCS);
    int leaf_internal = rng_below(100) < 60;
    while (s->frames + (leaf_internal ? 1u : 0u) < depth) {
        put(s, funcs[f].name, funcs[f].len);
        f = callee(f, skewed_below(funcs[f].ncallees));
    }
    if (leaf_internal) {
        const char *l = leaf_of(f, skewed_below(funcs[f].nleaves));
        put(s, l, strlen(l));
    }
    if (rng_below(100) < 15)
        old_branch(s);
}

/* ---- the distinct stacks: an arena and a dedup table ---- */

struct stackset {
    char *arena;
    size_t used, cap;
    uint64_t *off;       /* K offsets */
    uint32_t *len;       /* K lengths */
    uint8_t *entry;      /* K entry point indexes */
    uint16_t *frames;    /* K frame counts */
    unsigned long n;
    uint32_t *slots;     /* open addressing: index + 1, 0 = empty */
    size_t nslots;
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        fprintf(stderr, "svg-loggen: out of memory\n");
        exit(1);
    }
    return p;
}

/* Adds s when new; returns 1 if added, 0 for a duplicate. */
static int stackset_add(struct stackset *ss, const struct stackbuf *s, unsigned entry)
{
    uint64_t h = XXH3_64bits(s->b, s->len);
    size_t mask = ss->nslots - 1, i = (size_t)h & mask;
    for (; ss->slots[i]; i = (i + 1) & mask) {
        uint32_t k = ss->slots[i] - 1;
        if (ss->len[k] == s->len && memcmp(ss->arena + ss->off[k], s->b, s->len) == 0)
            return 0;
    }
    if (ss->used + s->len > ss->cap) {
        size_t cap = ss->cap * 2 + s->len;
        char *a = realloc(ss->arena, cap);
        if (!a) {
            fprintf(stderr, "svg-loggen: out of memory\n");
            exit(1);
        }
        ss->arena = a;
        ss->cap = cap;
    }
    memcpy(ss->arena + ss->used, s->b, s->len);
    ss->off[ss->n] = ss->used;
    ss->len[ss->n] = (uint32_t)s->len;
    ss->entry[ss->n] = (uint8_t)entry;
    ss->frames[ss->n] = (uint16_t)s->frames;
    ss->used += s->len;
    ss->slots[i] = (uint32_t)(ss->n + 1);
    ss->n++;
    return 1;
}

static int build_stacks(struct stackset *ss, unsigned long k)
{
    static struct stackbuf s;
    unsigned entry;
    unsigned long tries = 0;
    ss->nslots = 1024;
    while (ss->nslots < 2 * (size_t)k)
        ss->nslots *= 2;
    ss->slots = xcalloc(ss->nslots, sizeof *ss->slots);
    ss->off = xcalloc(k, sizeof *ss->off);
    ss->len = xcalloc(k, sizeof *ss->len);
    ss->entry = xcalloc(k, sizeof *ss->entry);
    ss->frames = xcalloc(k, sizeof *ss->frames);
    ss->cap = (size_t)k * 2048 + 4096;
    ss->arena = xcalloc(ss->cap, 1);
    while (ss->n < k) {
        make_stack(&s, &entry);
        stackset_add(ss, &s, entry);
        if (++tries > 20 * (unsigned long long)k + 1000) {
            fprintf(stderr, "svg-loggen: only %lu distinct stacks after %lu tries\n", ss->n, tries);
            return -1;
        }
    }
    free(ss->slots);
    ss->slots = NULL;
    return 0;
}

/* Zipf: cumulative weights of ranks 1..K, searched per line. */
static double *zipf_cdf(unsigned long k, double s)
{
    double *cdf = xcalloc(k, sizeof *cdf), acc = 0;
    for (unsigned long r = 0; r < k; r++) {
        acc += pow((double)(r + 1), -s);
        cdf[r] = acc;
    }
    return cdf;
}

static unsigned long zipf_draw(const double *cdf, unsigned long k)
{
    double u = rng_unit() * cdf[k - 1];
    unsigned long lo = 0, hi = k - 1;
    while (lo < hi) {
        unsigned long mid = lo + (hi - lo) / 2;
        if (cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* 1 on about 93% of lines, else 2, 3, 4... (geometric, at most 40). */
static unsigned draw_count(void)
{
    if (rng_below(1000) < 930)
        return 1;
    unsigned c = 2;
    while (c < 40 && rng_below(100) < 45)
        c++;
    return c;
}

/* ---- output ---- */

struct out {
    int fd;
    char *buf;
    size_t used;
    unsigned long long bytes;
    int error;
    XXH3_state_t *xxh;   /* only with --stats */
};

static void out_flush(struct out *o)
{
    size_t done = 0;
    if (o->xxh)
        XXH3_64bits_update(o->xxh, o->buf, o->used);
    while (done < o->used && !o->error) {
        ssize_t w = write(o->fd, o->buf + done, o->used - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "svg-loggen: write: %s\n", strerror(errno));
            o->error = 1;
            break;
        }
        done += (size_t)w;
    }
    o->used = 0;
}

static void out_write(struct out *o, const char *p, size_t n)
{
    if (o->used + n > OUT_BUF)
        out_flush(o);
    memcpy(o->buf + o->used, p, n);
    o->used += n;
    o->bytes += n;
}

/* ---- statistics ---- */

struct stats {
    unsigned long long lines, samples, count1, frames, len_sum;
    unsigned long long len_hist[LEN_HIST + 1];
    unsigned long long entry_lines[NENTRY];
    unsigned long long top_lines;    /* lines of the most popular stack */
    unsigned min_len, max_len, min_frames, max_frames;
    uint8_t *seen;                   /* per distinct stack */
};

static unsigned long long percentile_len(const struct stats *st, double p)
{
    unsigned long long want = (unsigned long long)(p * (double)st->lines), acc = 0;
    if (!st->lines)
        return 0;
    for (unsigned i = 0; i <= LEN_HIST; i++) {
        acc += st->len_hist[i];
        if (acc > want)
            return i;
    }
    return LEN_HIST;
}

static void print_stats(const struct stats *st, const struct stackset *ss, const struct options *o,
                        uint64_t digest)
{
    unsigned long present = 0;
    unsigned long long dlen = 0, dframes = 0;
    for (unsigned long i = 0; i < ss->n; i++) {
        present += st->seen[i];
        dlen += ss->len[i];
        dframes += ss->frames[i];
    }
    double n = st->lines ? (double)st->lines : 1;
    unsigned min_len = st->lines ? st->min_len : 0, min_frames = st->lines ? st->min_frames : 0;
    fprintf(stderr, "svg-loggen: seed=%llu lines=%llu bytes=%llu (%.1f MB) distinct_generated=%lu "
            "zipf=%.2f\n", (unsigned long long)o->seed, st->lines, st->len_sum + st->lines,
            (double)(st->len_sum + st->lines) / 1e6, ss->n, o->zipf);
    fprintf(stderr, "  line length (bytes, without newline): mean %.0f, min %u, p10 %llu, p50 %llu, "
            "p90 %llu, p99 %llu, max %u\n", (double)st->len_sum / n, min_len,
            percentile_len(st, 0.10), percentile_len(st, 0.50), percentile_len(st, 0.90),
            percentile_len(st, 0.99), st->max_len);
    fprintf(stderr, "  frames per line: mean %.1f, min %u, max %u; distinct stacks: mean %.0f bytes, "
            "%.1f frames\n", (double)st->frames / n, min_frames, st->max_frames,
            (double)dlen / (double)(ss->n ? ss->n : 1), (double)dframes / (double)(ss->n ? ss->n : 1));
    fprintf(stderr, "  distinct stacks present: %lu (%.1f%% of lines); most popular stack: %.2f%% of lines\n",
            present, 100.0 * (double)present / n, 100.0 * (double)st->top_lines / n);
    fprintf(stderr, "  count 1 on %.2f%% of lines; samples (sum of counts) %llu, %.3f per line\n",
            100.0 * (double)st->count1 / n, st->samples, (double)st->samples / n);
    fprintf(stderr, "  entry points (share of lines):");
    for (unsigned e = 0; e < NENTRY; e++)
        fprintf(stderr, " %s %.1f%%", entry_points[e].tag, 100.0 * (double)st->entry_lines[e] / n);
    fprintf(stderr, "\n  xxh3=%016llx\n", (unsigned long long)digest);
}

/* ---- command line ---- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: svg-loggen --lines N [--seed S] [--distinct K] [--zipf X] [--output FILE] [--stats]\n"
            "Writes N MediaWiki-like collapsed-stack lines (about 2 KB each) drawn\n"
            "Zipf-distributed from K distinct stacks (default 50000, exponent 1.0).\n"
            "  --seed S     PRNG seed (default 42): same options, same bytes\n"
            "  --output F   write to F instead of standard output\n"
            "  --stats      print line length, frames, distinct, count and entry point\n"
            "               figures and an XXH3 of the output to stderr\n"
            "  --version    print \"" LOGGEN_VERSION "\" (changes when the output would)\n");
}

static int parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"lines", required_argument, NULL, 'n'}, {"seed", required_argument, NULL, 's'},
        {"distinct", required_argument, NULL, 'k'}, {"zipf", required_argument, NULL, 'z'},
        {"output", required_argument, NULL, 'o'}, {"stats", no_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int opt, have_lines = 0;
    double v;
    *o = (struct options){0, 42, 50000, 1.0, NULL, 0};
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int bad = 0;
        switch (opt) {
        case 'n': bad = parse_num(optarg, 0, 1e12, &v); o->lines = (unsigned long long)v; have_lines = 1; break;
        case 's': bad = parse_num(optarg, 0, 1.8e19, &v); o->seed = (uint64_t)v; break;
        case 'k': bad = parse_num(optarg, 1, 1e7, &v); o->distinct = (unsigned long)v; break;
        case 'z': bad = parse_num(optarg, 0, 10, &v); o->zipf = v; break;
        case 'o': o->output = optarg; break;
        case 'S': o->stats = 1; break;
        case 'h': usage(stdout); exit(0);
        case 'V': puts(LOGGEN_VERSION); exit(0);
        default: return -1;
        }
        if (bad) {
            fprintf(stderr, "svg-loggen: bad value \"%s\"\n", optarg);
            return -1;
        }
    }
    if (optind != argc || !have_lines)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    static struct stackset ss;
    static struct stats st;
    struct out out = {1, NULL, 0, 0, 0, NULL};
    char tail[32];

    if (parse_args(argc, argv, &o) < 0) {
        usage(stderr);
        return EX_USAGE_CODE;
    }
    /* Independent streams: the code base, the distinct stacks, the lines. */
    rng_state = mix64(o.seed ^ 0x5eed0001);
    graph_seed = rng_next();
    build_code_base();
    rng_state = mix64(o.seed ^ 0x5eed0002);
    if (build_stacks(&ss, o.distinct) < 0)
        return 1;
    double *cdf = zipf_cdf(ss.n, o.zipf);

    if (o.output) {
        out.fd = open(o.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out.fd < 0) {
            fprintf(stderr, "svg-loggen: %s: %s\n", o.output, strerror(errno));
            return 1;
        }
    }
    out.buf = xcalloc(OUT_BUF, 1);
    if (o.stats) {
        out.xxh = XXH3_createState();
        if (!out.xxh)
            return 1;
        XXH3_64bits_reset(out.xxh);
        st.seen = xcalloc(ss.n, 1);
        st.min_len = st.min_frames = UINT32_MAX;
    }

    rng_state = mix64(o.seed ^ 0x5eed0003);
    for (unsigned long long i = 0; i < o.lines && !out.error; i++) {
        unsigned long r = zipf_draw(cdf, ss.n);
        unsigned count = draw_count();
        int n = snprintf(tail, sizeof tail, " %u\n", count);
        out_write(&out, ss.arena + ss.off[r], ss.len[r]);
        out_write(&out, tail, (size_t)n);
        if (o.stats) {
            unsigned len = ss.len[r] + (unsigned)n - 1;
            st.lines++;
            st.samples += count;
            st.count1 += count == 1;
            st.frames += ss.frames[r];
            st.len_sum += len;
            st.len_hist[len < LEN_HIST ? len : LEN_HIST]++;
            st.entry_lines[ss.entry[r]]++;
            st.top_lines += r == 0;
            st.seen[r] = 1;
            if (len < st.min_len) st.min_len = len;
            if (len > st.max_len) st.max_len = len;
            if (ss.frames[r] < st.min_frames) st.min_frames = ss.frames[r];
            if (ss.frames[r] > st.max_frames) st.max_frames = ss.frames[r];
        }
    }
    out_flush(&out);
    if (out.fd != 1 && close(out.fd) < 0 && !out.error) {
        fprintf(stderr, "svg-loggen: close: %s\n", strerror(errno));
        out.error = 1;
    }
    if (o.stats && !out.error)
        print_stats(&st, &ss, &o, XXH3_64bits_digest(out.xxh));
    return out.error ? 1 : 0;
}
