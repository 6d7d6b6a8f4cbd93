/* objstore_parse: the listing parsers of objstore, apart from the HTTP side
 * so that hostile pages can be tested as literals: a Swift JSON listing page
 * and an S3 ListObjectsV2 XML page each turned into objstore_items, and the
 * stores' timestamps into Unix seconds. Also home of objstore_name_ok
 * (declared in objstore.h), the rule every listed name must pass.
 *
 * A page is refused (OBJ_REFUSED, why in err) when it is not well-formed,
 * has a field of the wrong type, an item that does not start with the
 * prefix, or names that do not strictly increase (from `after`, the last
 * name of the previous page, on): a store that lists the same name twice is
 * lying or looping. An item whose name breaks objstore_name_ok ("../x",
 * control bytes) is a name any writer of the container may have chosen,
 * not a lie: it is skipped (counted in `skipped`, never given to the
 * callback), so one such object cannot hide the others. */
#ifndef ARCLAMP_OBJSTORE_PARSE_H
#define ARCLAMP_OBJSTORE_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "objstore.h"

/* What a page says about the next one. */
struct objstore_page {
    size_t count;   /* items given to the callback */
    size_t skipped; /* items skipped: names objstore_name_ok refuses */
    char *last;     /* the last item's name (malloc'ed; NULL on an empty page) */
    int truncated;  /* S3: IsTruncated was true (Swift: decided by the caller) */
    char *next;     /* S3: NextContinuationToken (malloc'ed), NULL if none */
};

void objstore_page_free(struct objstore_page *page);

/* "YYYY-MM-DDTHH:MM:SS[.fraction][Z]" as UTC Unix seconds; -1 if it is not
 * exactly that (or the date does not exist). */
int64_t objstore_parse_time(const char *s);

/* Parses one page of a Swift listing (`?format=json`): an array of objects
 * with "name", "hash", "bytes", "last_modified" and "content_type". `prefix`
 * (NULL: none) must start every name; `after` (NULL: none) must sort before
 * the first. fn is called per item; a non-zero return stops the page.
 * OBJ_OK (page filled), 1 when fn stopped, or OBJ_REFUSED. */
int objstore_parse_swift_page(const char *body, size_t len, const char *prefix,
                              const char *after, objstore_list_fn fn, void *arg,
                              struct objstore_page *page, char *err, size_t errlen);

/* Parses one ListObjectsV2 page (no DTD allowed, no network, no entities
 * expanded). Keys must start with "<container>/<prefix>"; the items carry
 * them without "<container>/". `prev_token` (NULL on the first page): a
 * NextContinuationToken equal to it is refused, as is IsTruncated without
 * a token. Returns as objstore_parse_swift_page. */
int objstore_parse_s3_page(const char *body, size_t len, const char *container,
                           const char *prefix, const char *after, const char *prev_token,
                           objstore_list_fn fn, void *arg, struct objstore_page *page,
                           char *err, size_t errlen);

#endif
