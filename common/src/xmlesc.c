/* xmlesc: untrusted bytes made safe for XML text, attributes and script.
 * See xmlesc.h for the rules; everything that reaches an SVG or HTML page
 * from input, options or file names goes through here. */
#include "xmlesc.h"
#include "linefields.h"

#include <stdint.h>

#define REPLACEMENT 0xFFFDu

/* Which sequences are UTF-8 is linefields_utf8_len's to say (the line
 * formats' validators use it too); here only the bits are put together. */
size_t utf8_next(const char *s, size_t len, unsigned *cp)
{
    static const unsigned char lead_bits[5] = {0, 0, 0x1F, 0x0F, 0x07};
    const unsigned char *p = (const unsigned char *)s;
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    size_t n = linefields_utf8_len(p, len);
    if (n == 0) {
        *cp = REPLACEMENT;
        return 1;
    }
    unsigned c = p[0] & lead_bits[n];
    for (size_t i = 1; i < n; i++)
        c = (c << 6) | (p[i] & 0x3F);
    *cp = c;
    return n;
}

void xml_to_ascii(strbuf *out, size_t from)
{
    size_t i = from;
    while (i < out->len && !(out->data[i] & 0x80))
        i++;
    if (i == out->len)
        return;   /* ASCII already */
    strbuf tail = STRBUF_INIT;
    unsigned cp;
    for (i = from; i < out->len;) {
        if (!(out->data[i] & 0x80)) {
            strbuf_appendc(&tail, out->data[i++]);
            continue;
        }
        i += utf8_next(out->data + i, out->len - i, &cp);
        strbuf_appendf(&tail, "&#x%X;", cp);
    }
    out->len = from;
    strbuf_append(out, tail.data, tail.len);
    strbuf_free(&tail);
}

size_t utf8_length(const char *s, size_t len)
{
    size_t n = 0;
    unsigned cp;
    for (size_t i = 0; i < len; n++)
        i += utf8_next(s + i, len - i, &cp);
    return n;
}

/* XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
 * [#x10000-#x10FFFF]. Newlines are replaced too: a frame name never holds
 * one legitimately, and in a <title> they would only confuse. */
static int xml_allowed(unsigned cp)
{
    if (cp < 0x20)
        return cp == '\t';
    if (cp == 0x7F)
        return 0;   /* DEL is legal XML but invisible; show that it was there */
    return cp != 0xFFFE && cp != 0xFFFF;
}

static void append_utf8(strbuf *out, unsigned cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6)), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12)), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18)), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    strbuf_append(out, b, n);
}

void xml_escape(strbuf *out, const char *s, size_t len)
{
    size_t i = 0, plain = 0;   /* s[plain..i) is a run of bytes copied as they are */
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F && c != '&' && c != '<' && c != '>' && c != '"' &&
            c != '\'') {
            i++;
            continue;
        }
        strbuf_append(out, s + plain, i - plain);
        unsigned cp;
        size_t n = utf8_next(s + i, len - i, &cp);
        switch (cp) {
        case '&': strbuf_appends(out, "&amp;"); break;
        case '<': strbuf_appends(out, "&lt;"); break;
        case '>': strbuf_appends(out, "&gt;"); break;
        case '"': strbuf_appends(out, "&quot;"); break;
        case '\'': strbuf_appends(out, "&apos;"); break;
        default: append_utf8(out, xml_allowed(cp) ? cp : REPLACEMENT);
        }
        i += n;
        plain = i;
    }
    strbuf_append(out, s + plain, i - plain);
}

static int js_plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == ' ' || c == '_' || c == '.' || c == ',' || c == ':' || c == '(' || c == ')' ||
           c == '-';
}

void js_string(strbuf *out, const char *s, size_t len)
{
    strbuf_appendc(out, '"');
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (js_plain(c)) {
            strbuf_appendc(out, (char)c);
            i++;
            continue;
        }
        unsigned cp;
        i += utf8_next(s + i, len - i, &cp);
        if (!xml_allowed(cp))
            cp = REPLACEMENT;
        if (cp >= 0x10000) {   /* JavaScript strings are UTF-16 */
            cp -= 0x10000;
            strbuf_appendf(out, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
        } else {
            strbuf_appendf(out, "\\u%04x", cp);
        }
    }
    strbuf_appendc(out, '"');
}

/* "\\u00XX" or "\\udcXX": a byte as JSON's escape (no printf: pages of
 * names full of control bytes made this most of their writing time). */
static void json_byte_escape(strbuf *out, const char *prefix, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    char esc[6] = {'\\', 'u', prefix[0], prefix[1], hex[c >> 4], hex[c & 15]};
    strbuf_append(out, esc, sizeof esc);
}

void json_string(strbuf *out, const char *s, size_t len)
{
    strbuf_appendc(out, '"');
    size_t plain = 0; /* start of the bytes not yet copied, which need no escape */
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            i++;
            continue;
        }
        unsigned cp;
        size_t n = c < 0x80 ? 1 : utf8_next(s + i, len - i, &cp);
        if (c >= 0x80 && !(cp == 0xFFFD && n == 1)) {
            i += n; /* valid UTF-8: as it is */
            continue;
        }
        strbuf_append(out, s + plain, i - plain);
        if (c >= 0x80)
            json_byte_escape(out, "dc", c); /* not UTF-8: PEP 383 */
        else if (c == '"' || c == '\\')
            strbuf_append(out, c == '"' ? "\\\"" : "\\\\", 2);
        else
            json_byte_escape(out, "00", c);
        i += n;
        plain = i;
    }
    strbuf_append(out, s + plain, len - plain);
    strbuf_appendc(out, '"');
}
