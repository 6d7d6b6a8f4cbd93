/* export: a run (arclamp-report's mean run) in the formats other tools
 * read: pprof's profile.proto, gzipped (common/src/pprof.h), and the
 * serialize()d XHProf array (common/src/phpserout.h).
 *
 * pprof from XHProf arcs. XHProf keeps parent==>child arcs, not stacks, so
 * a profile can hold only what the arcs say. Each arc becomes one sample,
 * its locations [child, parent] leaf first (the root arc "main()" becomes
 * [main()]), with one value per sample type:
 *   calls/count          the arc's ct
 *   cpu/microseconds     the child's exclusive cpu apportioned to the arc
 *   memory/bytes         the same for mu
 *   wall/microseconds    the same for wt (last: pprof's default type)
 * (the types the run measured; calls always). A function's exclusive
 * value is split over its arcs in, in proportion to each arc's inclusive
 * value of that metric (by ct when the function's inclusive is 0; all on
 * its first arc when ct is 0 too), and rounded so that the parts add up
 * to the rounded whole exactly (each part is the difference of rounded
 * running sums; rounding half to even, as the report's tables print). Hence, in `go tool pprof -top`:
 *   flat(F) = round(excl(F)), the report's exclusive value (for calls:
 *             round(ct(F)), the report's calls), exactly;
 *   cum(F)  = flat(F) + the parts of F's direct callees on their arcs
 *             from F: F's own time and its children's own time under it,
 *             not F's inclusive time (that needs the call paths, which
 *             the arcs do not keep; the report's inclusive numbers are
 *             the sums over the arcs, in the xhprof export).
 * Arcs f==>f (refused by xhprof_lib, left out of the report) are left out.
 * Memory: the writer's encoded bytes plus a few words per arc. */
#ifndef ARCLAMP_REPORT_EXPORT_H
#define ARCLAMP_REPORT_EXPORT_H

#include "run.h"
#include "strbuf.h"

/* Appends the gzipped Profile of r to out. */
void export_pprof(const run *r, strbuf *out);
/* Appends r serialize()d as PHP does: "parent==>child" => [metric => value]
 * for the metrics each arc has. */
void export_xhprof(const run *r, strbuf *out);

#endif
