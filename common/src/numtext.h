/* numtext: numbers as pages, titles and graphs show them to people.
 *
 * Counts get commas between thousands ("1,234,567"), as flamegraph.pl
 * prints them; the mean of several runs' counts keeps up to two decimals
 * ("0.5"); and a number with its noun takes the right number ("1 call",
 * "2 calls", "0.5 calls"). One place for these rules, so that no label
 * says "1 calls": arclamp-svg (tooltips, titles, the index) and
 * arclamp-report (callgraph, pages) both use it. */
#ifndef ARCLAMP_NUMTEXT_H
#define ARCLAMP_NUMTEXT_H

#include "strbuf.h"

/* Room for any double written by numtext_count_buf: %.0f of the largest
 * double is 309 digits, plus their commas, a sign and a NUL. */
#define NUMTEXT_MAX 512

/* Writes v as printf's %.0f (halves to even) with commas between thousands
 * of its digits, at any size ("1,000,000,000,000,000", never an exponent;
 * "-1,234"; "inf" and "nan" as printf writes them) into `out`, which holds
 * NUMTEXT_MAX bytes. Returns the value as rounded. */
double numtext_count_buf(char *out, double v);

/* Appends numtext_count_buf's text of v. */
void numtext_count(strbuf *out, double v);

/* Appends v as an amount that may be a mean of counts: a whole number as
 * numtext_count; any other with at most two decimals, trailing zeros
 * dropped ("0.5", "1,234.25"), or, when that would read 0, with its first
 * two significant digits ("0.0042"; values below 1e-12 read "0"). */
void numtext_amount(strbuf *out, double v);

/* Appends "<numtext_amount of v> <noun>": `one` when the number reads
 * exactly "1", `many` otherwise ("1 call", "0 calls", "1.5 calls"). */
void numtext_counted(strbuf *out, double v, const char *one, const char *many);

#endif
