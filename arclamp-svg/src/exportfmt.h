/* exportfmt: an aggregation of trace logs (flame.h) written in the formats
 * other profilers' tools read, for `arclamp-svg export`:
 *
 *   pprof       a gzipped profile.proto Profile (common/src/pprof.h): sample
 *               type samples/count, one Sample per distinct stack (location
 *               ids leaf first, value its count), one Function and Location
 *               per distinct frame (a frame ending in ".php" is a file, and
 *               its filename too), and the label "entrypoint" on the samples
 *               of stacks whose first frame is an entry point (its tag,
 *               stackline.h: "index" for ".../index.php");
 *   speedscope  speedscope's file format (https://www.speedscope.app/
 *               file-format-schema.json): the frames once in shared.frames,
 *               one "sampled" profile whose samples are the distinct stacks
 *               (frame indexes root first) weighted by their counts;
 *   collapsed   one line "STACK COUNT" per distinct stack, in the order of
 *               flame.h's layout (frame by frame by name), what flamegraph.pl
 *               and inferno read.
 *
 * Each writes the whole document to a buffer: its size follows the distinct
 * stacks and frames, which flame.h's limits bound, never the input's size. */
#ifndef ARCLAMP_SVG_EXPORTFMT_H
#define ARCLAMP_SVG_EXPORTFMT_H

#include "flame.h"
#include "strbuf.h"

enum export_format { EXPORT_PPROF, EXPORT_SPEEDSCOPE, EXPORT_COLLAPSED };

/* "pprof", "speedscope", "collapsed" to the format: 0, or -1 for another name. */
int export_format_from_name(const char *name, enum export_format *out);

/* Appends the finished flame `f` in `format` to out; `name` is the
 * profile's name where the format has one (speedscope). */
void export_write(const struct flame *f, enum export_format format, const char *name,
                  strbuf *out);

#endif
