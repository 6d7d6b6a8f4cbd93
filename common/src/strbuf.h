/* strbuf: a growable byte buffer (not NUL-terminated unless asked).
 *
 * Used for file write buffers, outgoing Redis commands and formatted text.
 * Allocation failure aborts the process: every user of this buffer is a
 * daemon or tool that cannot do anything useful without memory, and checking
 * every append would bury the logic. Memory is bounded by the callers, which
 * check `len` against their own limits before appending. */
#ifndef ARCLAMP_STRBUF_H
#define ARCLAMP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct strbuf {
    char *data;   /* the bytes; NULL while nothing was ever appended */
    size_t len;   /* bytes in use */
    size_t cap;   /* bytes allocated */
} strbuf;

#define STRBUF_INIT {NULL, 0, 0}

void strbuf_reserve(strbuf *sb, size_t extra);
void strbuf_append(strbuf *sb, const void *p, size_t n);
void strbuf_appendc(strbuf *sb, char c);
void strbuf_appends(strbuf *sb, const char *s);
void strbuf_appendf(strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void strbuf_vappendf(strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Drops the first n bytes (n <= len). */
void strbuf_consume(strbuf *sb, size_t n);
/* Returns data as a C string (a NUL is kept after len, not counted). */
const char *strbuf_cstr(strbuf *sb);
void strbuf_reset(strbuf *sb);
/* Frees the memory; the buffer is empty and reusable afterwards. */
void strbuf_free(strbuf *sb);

/* Allocation helpers with the same abort-on-failure policy. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#endif
