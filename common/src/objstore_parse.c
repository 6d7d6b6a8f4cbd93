/* objstore_parse: the listing parsers of objstore (Swift JSON pages, S3
 * ListObjectsV2 XML pages), the stores' timestamps, and the object-name rule.
 * Everything here is pure: bytes in, items or a refusal out. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "linefields.h"
#include "log.h"
#include "objstore_parse.h"
#include "strbuf.h"

#define NAME_MAX_BYTES 1024

int objstore_name_ok(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    if (len == 0 || len > NAME_MAX_BYTES || name[0] == '/')
        return 0;
    const unsigned char *p = (const unsigned char *)name;
    size_t comp = 0; /* start of the current component */
    for (size_t i = 0; i <= len; i++) {
        if (i == len || p[i] == '/') {
            size_t n = i - comp;
            if (n == 0 || (n == 1 && p[comp] == '.') ||
                (n == 2 && p[comp] == '.' && p[comp + 1] == '.'))
                return 0;
            comp = i + 1;
            continue;
        }
        if (p[i] < 0x20 || p[i] == 0x7f)
            return 0;
        if (p[i] >= 0x80) {
            size_t u = linefields_utf8_len(p + i, len - i);
            if (u == 0)
                return 0;
            i += u - 1;
        }
    }
    return 1;
}

void objstore_page_free(struct objstore_page *page)
{
    free(page->last);
    free(page->next);
    memset(page, 0, sizeof(*page));
}

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (no time zone, so no
 * TZ environment can shift it as timegm's neighbours could). */
static int64_t days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int64_t objstore_parse_time(const char *s)
{
    int y, mo, d, h, mi, se;
    if (!s || strlen(s) < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
        s[16] != ':')
        return -1;
    if (digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d) ||
        digits(s + 11, 2, &h) || digits(s + 14, 2, &mi) || digits(s + 17, 2, &se))
        return -1;
    const char *p = s + 19;
    if (*p == '.') {
        p++;
        const char *f = p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == f || p - f > 9)
            return -1;
    }
    if (*p == 'Z')
        p++;
    if (*p)
        return -1;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
        return -1;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap)
        return -1;
    return days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
}

static int refuse(char *err, size_t errlen, const char *what, const char *bad, size_t badlen)
{
    if (bad) {
        char q[4 * 64 + 4];
        log_quote(q, bad, badlen, 64);
        snprintf(err, errlen, "listing refused: %s \"%s\"", what, q);
    } else {
        snprintf(err, errlen, "listing refused: %s", what);
    }
    return OBJ_REFUSED;
}

/* check_name's answer for a name to skip (see the top of objstore_parse.h). */
#define NAME_SKIPPED 4

/* The checks every listed name passes, whichever protocol listed it. */
static int check_name(const char *name, size_t len, const char *prefix, const char *prev,
                      char *err, size_t errlen)
{
    if (len != strlen(name))
        return refuse(err, errlen, "an object name holds a NUL byte", name, len);
    if (prefix && strncmp(name, prefix, strlen(prefix)) != 0)
        return refuse(err, errlen, "name outside the prefix", name, len);
    if (prev && strcmp(name, prev) <= 0)
        return refuse(err, errlen, "names do not advance at", name, len);
    return objstore_name_ok(name) ? OBJ_OK : NAME_SKIPPED;
}

/* A short text field of a listing: no control bytes, at most `max` bytes. */
static int text_ok(const char *s, size_t len, size_t max)
{
    if (len > max || len != strlen(s))
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return 0;
    return 1;
}

static const char *json_text(struct json_object *obj, const char *key, size_t max, int need)
{
    struct json_object *v;
    if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null))
        return need ? NULL : "";
    if (!json_object_is_type(v, json_type_string))
        return NULL;
    const char *s = json_object_get_string(v);
    return text_ok(s, (size_t)json_object_get_string_len(v), max) ? s : NULL;
}

static int swift_item(struct json_object *obj, const char *prefix, const char *prev,
                      struct objstore_item *it, char *err, size_t errlen)
{
    struct json_object *v;
    if (!json_object_is_type(obj, json_type_object))
        return refuse(err, errlen, "an entry is not a JSON object", NULL, 0);
    if (!json_object_object_get_ex(obj, "name", &v) || !json_object_is_type(v, json_type_string))
        return refuse(err, errlen, "an entry has no string \"name\" (a subdir?)", NULL, 0);
    const char *name = json_object_get_string(v);
    int rc = check_name(name, (size_t)json_object_get_string_len(v), prefix, prev, err, errlen);
    it->name = name;
    if (rc != OBJ_OK)
        return rc;
    if (!json_object_object_get_ex(obj, "bytes", &v) || !json_object_is_type(v, json_type_int) ||
        json_object_get_int64(v) < 0)
        return refuse(err, errlen, "\"bytes\" is not a non-negative integer for", name,
                      strlen(name));
    it->bytes = (uint64_t)json_object_get_int64(v);
    it->name = name;
    it->hash = json_text(obj, "hash", 128, 1);
    it->last_modified = json_text(obj, "last_modified", 64, 1);
    it->content_type = json_text(obj, "content_type", 1024, 0);
    if (!it->hash || !it->last_modified || !it->content_type)
        return refuse(err, errlen, "a field is missing or not a short string for", name,
                      strlen(name));
    it->last_modified_s = objstore_parse_time(it->last_modified);
    return OBJ_OK;
}

int objstore_parse_swift_page(const char *body, size_t len, const char *prefix,
                              const char *after, objstore_list_fn fn, void *arg,
                              struct objstore_page *page, char *err, size_t errlen)
{
    memset(page, 0, sizeof(*page));
    if (len > INT_MAX)
        return refuse(err, errlen, "page too large to parse", NULL, 0);
    /* A listing is an array of flat objects: depth 3 is plenty, and a
     * deeper page is refused before it costs anything. */
    struct json_tokener *tok = json_tokener_new_ex(4);
    struct json_object *root = json_tokener_parse_ex(tok, body, (int)len);
    int bad = !root || json_tokener_get_error(tok) != json_tokener_success;
    size_t end = bad ? 0 : json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    for (; !bad && end < len; end++)
        if (!strchr(" \t\r\n", body[end]))
            bad = 1;
    int rc = OBJ_OK;
    if (bad)
        rc = refuse(err, errlen, "not well-formed JSON", NULL, 0);
    else if (!json_object_is_type(root, json_type_array))
        rc = refuse(err, errlen, "the JSON page is not an array", NULL, 0);
    const char *prev = after;
    size_t n = rc == OBJ_OK ? json_object_array_length(root) : 0;
    for (size_t i = 0; i < n && rc == OBJ_OK; i++) {
        struct objstore_item it = {0};
        rc = swift_item(json_object_array_get_idx(root, i), prefix, prev, &it, err, errlen);
        if (rc == NAME_SKIPPED) {
            prev = it.name;
            page->skipped++;
            rc = OBJ_OK;
            continue;
        }
        if (rc != OBJ_OK)
            break;
        prev = it.name;
        page->count++;
        if (fn && fn(&it, arg))
            rc = 1;
    }
    if (rc != OBJ_REFUSED && prev && prev != after)
        page->last = xstrdup(prev);
    json_object_put(root);
    return rc;
}

/* --- S3 ListObjectsV2 ------------------------------------------------------ */

static int is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* The text of an element that must hold text only (no child elements). */
static char *elem_text(const xmlNode *n)
{
    for (const xmlNode *c = n->children; c; c = c->next)
        if (c->type != XML_TEXT_NODE && c->type != XML_CDATA_SECTION_NODE)
            return NULL;
    xmlChar *t = xmlNodeGetContent(n);
    if (!t)
        return xstrdup("");
    char *s = xstrdup((const char *)t);
    xmlFree(t);
    return s;
}

/* ETags arrive quoted ("\"abc\"", or &quot; in the XML). */
static void unquote(char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        memmove(s, s + 1, n - 2);
        s[n - 2] = '\0';
    }
}

struct s3_fields {
    char *key, *etag, *size, *modified;
};

static void s3_fields_free(struct s3_fields *f)
{
    free(f->key);
    free(f->etag);
    free(f->size);
    free(f->modified);
}

static int s3_parse_size(const char *s, uint64_t *out)
{
    size_t n = strlen(s);
    unsigned long long v = 0;
    if (n == 0 || n > 19)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return 0;
}

static int s3_item(const xmlNode *contents, const char *cprefix, const char *prefix,
                   const char *prev, struct s3_fields *f, struct objstore_item *it, char *err,
                   size_t errlen)
{
    for (const xmlNode *c = contents->children; c; c = c->next) {
        char **slot = is_elem(c, "Key")            ? &f->key
                      : is_elem(c, "ETag")         ? &f->etag
                      : is_elem(c, "Size")         ? &f->size
                      : is_elem(c, "LastModified") ? &f->modified
                                                   : NULL;
        if (!slot)
            continue;
        if (*slot)
            return refuse(err, errlen, "a field given twice in <Contents>", NULL, 0);
        if (!(*slot = elem_text(c)))
            return refuse(err, errlen, "a field of <Contents> is not text", NULL, 0);
    }
    if (!f->key || !f->etag || !f->size || !f->modified)
        return refuse(err, errlen, "<Contents> without Key, ETag, Size or LastModified", NULL, 0);
    size_t cl = strlen(cprefix);
    if (strncmp(f->key, cprefix, cl) != 0)
        return refuse(err, errlen, "key outside the container", f->key, strlen(f->key));
    int rc = check_name(f->key + cl, strlen(f->key + cl), prefix, prev, err, errlen);
    it->name = f->key + cl;
    if (rc != OBJ_OK)
        return rc;
    unquote(f->etag);
    if (!text_ok(f->etag, strlen(f->etag), 128) || !text_ok(f->modified, strlen(f->modified), 64))
        return refuse(err, errlen, "bad ETag or LastModified for", f->key, strlen(f->key));
    if (s3_parse_size(f->size, &it->bytes) != 0)
        return refuse(err, errlen, "Size is not a number for", f->key, strlen(f->key));
    it->name = f->key + cl;
    it->hash = f->etag;
    it->last_modified = f->modified;
    it->last_modified_s = objstore_parse_time(f->modified);
    it->content_type = NULL;
    return OBJ_OK;
}

/* IsTruncated and NextContinuationToken, checked against the previous page. */
static int s3_next(const xmlNode *root, const char *prev_token, struct objstore_page *page,
                   char *err, size_t errlen)
{
    char *trunc = NULL;
    for (const xmlNode *c = root->children; c; c = c->next) {
        if (is_elem(c, "IsTruncated") && !trunc) {
            if (!(trunc = elem_text(c)))
                return refuse(err, errlen, "IsTruncated is not text", NULL, 0);
        } else if (is_elem(c, "NextContinuationToken") && !page->next) {
            if (!(page->next = elem_text(c)))
                return refuse(err, errlen, "NextContinuationToken is not text", NULL, 0);
        }
    }
    int rc = OBJ_OK;
    if (!trunc || (strcmp(trunc, "true") != 0 && strcmp(trunc, "false") != 0))
        rc = refuse(err, errlen, "IsTruncated missing or not true/false", NULL, 0);
    else if ((page->truncated = strcmp(trunc, "true") == 0) &&
             (!page->next || !*page->next || strlen(page->next) > 4096))
        rc = refuse(err, errlen, "IsTruncated without a usable NextContinuationToken", NULL, 0);
    else if (page->truncated && prev_token && strcmp(page->next, prev_token) == 0)
        rc = refuse(err, errlen, "the continuation token does not advance", NULL, 0);
    free(trunc);
    return rc;
}

static int s3_walk(const xmlNode *root, const char *container, const char *prefix,
                   const char *after, const char *prev_token, objstore_list_fn fn, void *arg,
                   struct objstore_page *page, char *err, size_t errlen)
{
    if (!root || !is_elem(root, "ListBucketResult"))
        return refuse(err, errlen, "the XML page is not a ListBucketResult", NULL, 0);
    int rc = s3_next(root, prev_token, page, err, errlen);
    char *cprefix = xmalloc(strlen(container) + 2);
    sprintf(cprefix, "%s/", container);
    char *prev = after ? xstrdup(after) : NULL;
    for (const xmlNode *c = root->children; c && rc == OBJ_OK; c = c->next) {
        if (!is_elem(c, "Contents"))
            continue;
        struct s3_fields f = {0};
        struct objstore_item it = {0};
        rc = s3_item(c, cprefix, prefix, prev, &f, &it, err, errlen);
        if (rc == NAME_SKIPPED) {
            page->skipped++;
            free(prev);
            prev = xstrdup(it.name);
            rc = OBJ_OK;
        } else if (rc == OBJ_OK) {
            page->count++;
            if (fn && fn(&it, arg))
                rc = 1;
            free(prev);
            prev = xstrdup(it.name);
        }
        s3_fields_free(&f);
    }
    if (rc != OBJ_REFUSED && page->count + page->skipped)
        page->last = prev;
    else
        free(prev);
    free(cprefix);
    return rc;
}

int objstore_parse_s3_page(const char *body, size_t len, const char *container,
                           const char *prefix, const char *after, const char *prev_token,
                           objstore_list_fn fn, void *arg, struct objstore_page *page,
                           char *err, size_t errlen)
{
    memset(page, 0, sizeof(*page));
    if (len > INT_MAX)
        return refuse(err, errlen, "page too large to parse", NULL, 0);
    /* NONET: nothing is fetched; no XML_PARSE_NOENT or DTDLOAD, so entities
     * stay unexpanded — and a page with any DOCTYPE is refused outright, as
     * ListObjectsV2 never carries one. */
    xmlDoc *doc = xmlReadMemory(body, (int)len, "listing.xml", NULL,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    int rc;
    if (!doc)
        rc = refuse(err, errlen, "not well-formed XML", NULL, 0);
    else if (doc->intSubset || doc->extSubset)
        rc = refuse(err, errlen, "the XML page has a DOCTYPE", NULL, 0);
    else
        rc = s3_walk(xmlDocGetRootElement(doc), container, prefix, after, prev_token, fn, arg,
                     page, err, errlen);
    if (rc == OBJ_REFUSED)
        objstore_page_free(page);
    xmlFreeDoc(doc);
    return rc;
}
