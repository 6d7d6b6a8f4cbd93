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
 * With the sample clock known (sample_period, the fleet's excimer period),
 * a sample stands for that much CPU or wall time: pprof gets a second
 * sample type, cpu/nanoseconds or wall/nanoseconds, with that period (what
 * go tool pprof shows by default, as for Go's own CPU profiles), and
 * speedscope weighs its samples in seconds. Without it, counts only.
 *
 * The documents are written through a sink in pieces of about 64 KiB, so
 * only the aggregation and pprof's encoded message are held in memory,
 * never the whole text: both follow the distinct stacks and frames, which
 * flame.h's limits bound, never the input's size. */
#ifndef ARCLAMP_SVG_EXPORTFMT_H
#define ARCLAMP_SVG_EXPORTFMT_H

#include "flame.h"
#include "strbuf.h"

enum export_format { EXPORT_PPROF, EXPORT_SPEEDSCOPE, EXPORT_COLLAPSED };

/* What the document says beyond the stacks. */
struct export_meta {
    const char *name;      /* the profile's name (speedscope) */
    double period;         /* seconds one sample stands for; 0: not known */
    int wall;              /* that period is wall-clock time (else CPU time) */
};

/* Where a document goes: `buf` is filled and handed to write() whenever it
 * holds EXPORT_SINK_CHUNK bytes, and at the end. write returns 0, or -1 to
 * stop (the sink then drops the rest; export_write returns -1). */
#define EXPORT_SINK_CHUNK 65536
struct export_sink {
    int (*write)(void *ctx, const char *data, size_t len);
    void *ctx;
    strbuf buf;
    int failed;
};

/* "pprof", "speedscope", "collapsed" to the format: 0, or -1 for another name. */
int export_format_from_name(const char *name, enum export_format *out);

/* Writes the finished flame `f` in `format` to the sink (buf freed after).
 * 0, or -1 when the sink's write failed. */
int export_write(const struct flame *f, enum export_format format, const struct export_meta *m,
                 struct export_sink *out);

#endif
