/* pprof: profiles in the format of pprof (Google's profile.proto), both
 * halves: the writer arclamp-svg's export uses, and a reader the tests use
 * to check what the writer wrote.
 *
 * A profile is one protobuf message "Profile" (package perftools.profiles):
 * sample types, samples (location ids leaf first, one value per sample
 * type, labels), locations, functions and a string table that every name
 * is an index into (entry 0 is ""). The file is that message gzipped. The
 * encoding is written here by hand (varints and length-delimited fields):
 * the few messages Arc Lamp needs do not justify a protobuf library.
 *
 * Writer: samples, locations and functions are encoded as they come, so
 * the writer holds the encoded bytes and the distinct strings, nothing
 * else; the caller bounds how many there are (arclamp-svg: flame.h's
 * limits). Every location has exactly one line, of one function, and the
 * same id as that function: a PHP frame is a function, there are no
 * addresses. A function has a name and no system_name (pprof.c says why).
 *
 * Reader: strict and bounded by its input: every length is checked against
 * the bytes left, unknown fields are skipped by wire type, and an id or
 * string index is only checked by the accessors that use it. Allocation
 * failure aborts (strbuf.h). */
#ifndef ARCLAMP_PPROF_H
#define ARCLAMP_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "hashidx.h"
#include "strbuf.h"

/* --- writer --------------------------------------------------------------- */

struct pprof_label {
    uint64_t key;   /* string index of the label's name */
    uint64_t str;   /* string index of its value */
};

struct pprof_string_ref {
    size_t off, len;     /* in pprof_writer.names */
    uint64_t hash;       /* keyedhash of the bytes */
};

struct pprof_writer {
    strbuf messages;              /* encoded Profile fields: samples, locations, functions */
    strbuf names;                 /* the distinct strings, back to back */
    struct pprof_string_ref *strings;
    size_t nstrings, strings_cap;
    struct hashidx string_index;  /* strings by their bytes */
    uint64_t nfunctions;          /* ids handed out: 1..nfunctions */
    strbuf scratch;               /* one sub-message while it is built */
    strbuf packed;                /* a packed repeated field while it is built */
};

void pprof_writer_init(struct pprof_writer *w);
void pprof_writer_free(struct pprof_writer *w);

/* The index of `s` (len bytes) in the string table, added when new. */
uint64_t pprof_string(struct pprof_writer *w, const char *s, size_t len);

/* A sample type (type and unit are strings, e.g. "samples", "count"); one
 * per value of every sample, in order. */
void pprof_sample_type(struct pprof_writer *w, const char *type, const char *unit);
/* What one sample stands for: the period's type and unit and its size
 * (e.g. "wall", "microseconds", 10000). Optional. */
void pprof_period(struct pprof_writer *w, const char *type, const char *unit, int64_t period);

/* A function named `name`, with `filename` (NULL or "" for none), and its
 * location: returns the id of both (1, 2, ...). */
uint64_t pprof_function(struct pprof_writer *w, const char *name, size_t name_len,
                        const char *filename, size_t filename_len);

/* One sample: location ids leaf first, values (one per sample type) and
 * labels (string indexes). */
void pprof_sample(struct pprof_writer *w, const uint64_t *locations, size_t nlocations,
                  const int64_t *values, size_t nvalues, const struct pprof_label *labels,
                  size_t nlabels);

/* Appends the whole Profile message (not compressed) to out. The writer
 * stays usable (more samples, then another pprof_encode). */
void pprof_encode(struct pprof_writer *w, strbuf *out);

/* Appends data[0..len) gzipped to out (the file form of a profile). */
void pprof_gzip(const void *data, size_t len, strbuf *out);
/* Appends the gunzipped bytes of data[0..len) to out, at most `max` of them
 * (a gzip bomb stops there). 0, or -1 with a message in err: not gzip,
 * corrupt, or more than max bytes. */
int pprof_gunzip(const void *data, size_t len, size_t max, strbuf *out, char *err,
                 size_t errlen);

/* --- reader --------------------------------------------------------------- */

struct pprof_value_type {
    int64_t type, unit;   /* string indexes */
};

struct pprof_read_sample {
    uint64_t *locations;  /* leaf first */
    size_t nlocations;
    int64_t *values;
    size_t nvalues;
    struct pprof_label *labels;
    size_t nlabels;
};

struct pprof_read_location {
    uint64_t id;
    uint64_t function_id; /* of its first line (0: none) */
    size_t nlines;
};

struct pprof_read_function {
    uint64_t id;
    int64_t name, system_name, filename;  /* string indexes */
};

struct pprof_read_string {
    char *s;              /* NUL-terminated copy (may hold NULs before it) */
    size_t len;
};

struct pprof_profile {
    struct pprof_value_type *sample_types;
    size_t nsample_types;
    struct pprof_value_type period_type;
    int64_t period;
    struct pprof_read_sample *samples;
    size_t nsamples;
    struct pprof_read_location *locations;
    size_t nlocations;
    struct pprof_read_function *functions;
    size_t nfunctions;
    struct pprof_read_string *strings;
    size_t nstrings;
};

/* Decodes a Profile message (not gzipped) into p (free it with
 * pprof_profile_free whatever this returns). 0, or -1 with a message in
 * err for a malformed message. */
int pprof_decode(const void *data, size_t len, struct pprof_profile *p, char *err,
                 size_t errlen);
void pprof_profile_free(struct pprof_profile *p);

/* String `index` of the table, or NULL when out of range. */
const char *pprof_profile_string(const struct pprof_profile *p, int64_t index, size_t *len);
/* The location or function with `id`, or NULL. */
const struct pprof_read_location *pprof_profile_location(const struct pprof_profile *p,
                                                         uint64_t id);
const struct pprof_read_function *pprof_profile_function(const struct pprof_profile *p,
                                                         uint64_t id);

#endif
