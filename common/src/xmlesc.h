/* xmlesc: untrusted bytes made safe for XML text, attributes, script and
 * JSON.
 *
 * Input may hold anything: NUL and other control bytes, invalid UTF-8, markup.
 * Output is always well-formed: '&', '<', '>', '"' and '\'' become entities,
 * bytes XML 1.0 cannot carry (controls other than tab, and U+FFFE/U+FFFF)
 * and every invalid UTF-8 sequence become U+FFFD. */
#ifndef ARCLAMP_XMLESC_H
#define ARCLAMP_XMLESC_H

#include <stddef.h>

#include "strbuf.h"

/* Appends `len` bytes of `s` as escaped XML character data. */
void xml_escape(strbuf *out, const char *s, size_t len);
/* Appends `s` as a JSON string literal safe inside <![CDATA[ ]]> and
 * <script>: quotes included, everything but [A-Za-z0-9 _.,:()-] \u-escaped. */
void js_string(strbuf *out, const char *s, size_t len);
/* Appends `s` as a JSON string literal, quotes included: '"' and '\\'
 * escaped, control characters and DEL as \u00XX, valid UTF-8 as it is
 * (so it decodes to s itself), and a byte that is not UTF-8 as the lone
 * surrogate \udcXX (Python's PEP 383), so nothing is lost or invented. */
void json_string(strbuf *out, const char *s, size_t len);

/* Rewrites out[from..], valid UTF-8 as the escapers write it, with every
 * character beyond ASCII as a character reference ("&#xE9;"), so its bytes
 * mean the same in any encoding that keeps ASCII as it is. Only for
 * markup whose non-ASCII characters are in text and attribute values
 * (references mean nothing in comments or CDATA). */
void xml_to_ascii(strbuf *out, size_t from);

/* Decodes one UTF-8 character of s[0..len); returns the bytes it takes
 * (>= 1) and stores the code point, or U+FFFD for an invalid sequence
 * (consuming one byte). */
size_t utf8_next(const char *s, size_t len, unsigned *cp);

/* Code points in s[0..len) as utf8_next counts them. */
size_t utf8_length(const char *s, size_t len);

#endif
