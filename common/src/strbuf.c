/* strbuf: growable byte buffer and abort-on-failure allocation helpers.
 * See strbuf.h for the ownership and failure policy. */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "out of memory (allocating %zu bytes)\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void strbuf_reserve(strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1; /* +1 keeps room for strbuf_cstr */
    if (need <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap *= 2;
    sb->data = xrealloc(sb->data, cap);
    sb->cap = cap;
}

void strbuf_append(strbuf *sb, const void *p, size_t n)
{
    if (n == 0)
        return;
    strbuf_reserve(sb, n);
    memcpy(sb->data + sb->len, p, n);
    sb->len += n;
}

void strbuf_appendc(strbuf *sb, char c)
{
    strbuf_reserve(sb, 1);
    sb->data[sb->len++] = c;
}

void strbuf_appends(strbuf *sb, const char *s)
{
    strbuf_append(sb, s, strlen(s));
}

void strbuf_vappendf(strbuf *sb, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n <= 0)
        return;
    strbuf_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void strbuf_appendf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vappendf(sb, fmt, ap);
    va_end(ap);
}

void strbuf_consume(strbuf *sb, size_t n)
{
    if (n >= sb->len) {
        sb->len = 0;
        return;
    }
    memmove(sb->data, sb->data + n, sb->len - n);
    sb->len -= n;
}

const char *strbuf_cstr(strbuf *sb)
{
    strbuf_reserve(sb, 0);
    sb->data[sb->len] = '\0';
    return sb->data;
}

void strbuf_reset(strbuf *sb)
{
    sb->len = 0;
}

void strbuf_free(strbuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}
