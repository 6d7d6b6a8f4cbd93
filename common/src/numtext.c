/* numtext: counts, amounts and counted nouns as people read them (see
 * numtext.h). */
#include "numtext.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* printf's %.0f of any double: 309 digits at most, a sign and a NUL. */
#define DIGITS_MAX 320

/* Copies `text` (printf output: sign, digits, the rest) to `out` with
 * commas between thousands of its leading run of digits. `out` holds
 * NUMTEXT_MAX bytes; `text` is shorter than DIGITS_MAX. */
static void group_digits(char *out, const char *text)
{
    const char *d = text + (text[0] == '-');
    size_t n = strspn(d, "0123456789"), o = (size_t)(d - text);
    memcpy(out, text, o);
    for (size_t i = 0; i < n; i++) {
        out[o++] = d[i];
        if (i + 1 < n && (n - i - 1) % 3 == 0)
            out[o++] = ',';
    }
    snprintf(out + o, NUMTEXT_MAX - o, "%s", d + n);   /* ".25", "inf", "nan" */
}

double numtext_count_buf(char *out, double v)
{
    char digits[DIGITS_MAX];
    snprintf(digits, sizeof digits, "%.0f", v);
    group_digits(out, digits);
    return strtod(digits, NULL);
}

void numtext_count(strbuf *out, double v)
{
    char num[NUMTEXT_MAX];
    numtext_count_buf(num, v);
    strbuf_appends(out, num);
}

/* Drops the zeros that end a decimal fraction, and the point when nothing
 * is left after it ("0.50" -> "0.5", "2.00" -> "2"). */
static void trim_fraction(char *s)
{
    char *point = strchr(s, '.');
    if (!point)
        return;
    size_t n = strlen(s);
    while (n > (size_t)(point - s) + 1 && s[n - 1] == '0')
        s[--n] = '\0';
    if (s[n - 1] == '.')
        s[n - 1] = '\0';
}

/* How many decimals show the first two significant digits of a small
 * non-zero |v| (below 0.005): 0.0042 needs 4. At most 12, so that what
 * is below 1e-12 reads 0. */
static int small_decimals(double v)
{
    int first = (int)-floor(log10(fabs(v)));   /* 0.0042: the 3rd decimal */
    return first + 1 > 12 ? 12 : first + 1;
}

void numtext_amount(strbuf *out, double v)
{
    if (!isfinite(v) || v == floor(v)) {
        numtext_count(out, v);
        return;
    }
    char text[DIGITS_MAX], grouped[NUMTEXT_MAX];
    int decimals = fabs(v) < 0.005 ? small_decimals(v) : 2;
    snprintf(text, sizeof text, "%.*f", decimals, v);
    trim_fraction(text);
    if (strcmp(text, "-0") == 0)
        strcpy(text, "0");
    group_digits(grouped, text);
    strbuf_appends(out, grouped);
}

void numtext_counted(strbuf *out, double v, const char *one, const char *many)
{
    size_t from = out->len;
    numtext_amount(out, v);
    int singular = out->len - from == 1 && out->data[from] == '1';
    strbuf_appendc(out, ' ');
    strbuf_appends(out, singular ? one : many);
}
