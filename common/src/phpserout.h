/* phpserout: the writing half of PHP serialize() for XHProf runs, the shape
 * phpser.h reads (an array of arrays of numbers):
 *   a:N:{s:LEN:"parent==>child";a:M:{s:2:"ct";i:3;s:2:"wt";d:120.5;...}...}
 * so that an exported run is what xhprof_lib's XHProfRuns_Default and
 * PHP's unserialize() read. Only the pieces of that shape are written; the
 * caller writes them in order and gives the counts, as serialize() does.
 *
 * Numbers: a whole value of magnitude below 1e18 is an integer (i:), as
 * PHP wrote it; any other finite value a double (d:) in the shortest form
 * that reads back to the same double ("%.17g" at most). A non-finite value
 * is written as 0: phpser refuses NAN and INF, and no run holds one. */
#ifndef ARCLAMP_PHPSEROUT_H
#define ARCLAMP_PHPSEROUT_H

#include <stddef.h>

#include "strbuf.h"

/* "a:N:{" */
void phpser_write_array(strbuf *out, size_t n);
/* "}" */
void phpser_write_end(strbuf *out);
/* s:LEN:"bytes"; (any bytes: PHP strings are counted, not escaped) */
void phpser_write_string(strbuf *out, const char *s, size_t len);
/* i:N; or d:X; */
void phpser_write_number(strbuf *out, double v);

#endif
