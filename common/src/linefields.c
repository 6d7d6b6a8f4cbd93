/* linefields: fields, integers, escapes and UTF-8 of the line formats
 * (linefields.h). */
#include "linefields.h"

#include <string.h>

int linefields_next(struct linefields *f, const char **start, size_t *len)
{
    if (f->p >= f->end)
        return 0;
    const char *sp = memchr(f->p, ' ', (size_t)(f->end - f->p));
    const char *stop = sp ? sp : f->end;
    *start = f->p;
    *len = (size_t)(stop - f->p);
    f->p = sp ? sp + 1 : f->end;
    return *len > 0;
}

int linefields_int(const char *s, size_t len, int allow_negative, int64_t *out)
{
    int neg = len > 0 && s[0] == '-';
    if (neg && !allow_negative)
        return -1;
    s += neg;
    len -= (size_t)neg;
    if (len == 0 || len > 19 || (s[0] == '0' && len > 1))
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

int linefields_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

size_t linefields_unescape(const char *s, size_t len, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '%' && i + 2 < len) {
            out[o++] = (char)(linefields_hexval(s[i + 1]) * 16 + linefields_hexval(s[i + 2]));
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    return o;
}

size_t linefields_utf8_len(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (avail < n || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    }
    return n;
}
