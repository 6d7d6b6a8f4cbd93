/* phpserout: PHP serialize() of XHProf runs (see phpserout.h), the
 * writing half next to phpser.c's reader. */
#include "phpserout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void phpser_write_array(strbuf *out, size_t n)
{
    strbuf_appendf(out, "a:%zu:{", n);
}

void phpser_write_end(strbuf *out)
{
    strbuf_appendc(out, '}');
}

void phpser_write_string(strbuf *out, const char *s, size_t len)
{
    strbuf_appendf(out, "s:%zu:\"", len);
    strbuf_append(out, s, len);
    strbuf_append(out, "\";", 2);
}

void phpser_write_number(strbuf *out, double v)
{
    if (!isfinite(v))
        v = 0;
    if (v == floor(v) && fabs(v) < 1e18) {
        strbuf_appendf(out, "i:%lld;", (long long)v);
        return;
    }
    /* the shortest of %.15g..%.17g that reads back as v (PHP's
     * serialize_precision -1 writes the shortest too) */
    char text[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v)
            break;
    }
    strbuf_appendf(out, "d:%s;", text);
}
