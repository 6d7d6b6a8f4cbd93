/* linefields: what the project's line formats share — a cursor over the
 * space-separated fields of a line, strict decimal integers, %XX escapes and
 * the length of a UTF-8 sequence. Used by stackline (samples), runline (xhprof/1 runs)
 * and tierline (tiers/1 aggregates). libc only: the extension compiles it
 * too (tierline travels with it). */
#ifndef ARCLAMP_LINEFIELDS_H
#define ARCLAMP_LINEFIELDS_H

#include <stddef.h>
#include <stdint.h>

struct linefields {
    const char *p, *end;        /* what is left of the line */
};

/* The next field; 0 when there is none or it is empty (two spaces). */
int linefields_next(struct linefields *f, const char **start, size_t *len);

/* A decimal integer: digits, '-' first only when `allow_negative`; no '+',
 * no leading zero, within int64_t. 0, or -1 when it is not one. */
int linefields_int(const char *s, size_t len, int allow_negative, int64_t *out);

/* The value of a hex digit (either case), or -1. */
int linefields_hexval(char c);

/* Decodes the %XX escapes of text that a format's parser has already
 * checked (every '%' followed by two hex digits) into out (at least len
 * bytes); returns the decoded length. */
size_t linefields_unescape(const char *s, size_t len, char *out);

/* The length of the UTF-8 sequence of 2-4 bytes at p (p[0] >= 0x80), or 0
 * when malformed: overlong forms, surrogates and code points above U+10FFFF
 * are refused. The project's one UTF-8 rule: xmlesc's utf8_next decodes
 * what this accepts. */
size_t linefields_utf8_len(const unsigned char *p, size_t avail);

#endif
