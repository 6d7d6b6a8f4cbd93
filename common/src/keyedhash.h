/* keyedhash: the one hash of Arc Lamp for tables keyed by what a sender
 * chooses (run ids, tags and paths, tier identities, function names, stacks).
 *
 * An unkeyed hash (FNV, XXH3 without a secret) lets a sender compute, offline,
 * thousands of keys that land in one bucket, and every lookup then walks the
 * whole chain: 999 run ids colliding under FNV-1a cost arclamp-log 7-8 times
 * the CPU of random ids. SipHash-2-4 under a random 128-bit key per process
 * makes the buckets unpredictable to anyone outside the process.
 *
 * The hashes differ from one process to the next: nothing that is written,
 * compared across processes or shown may depend on them (an output's order,
 * a file name). Tables iterate in insertion order, never in hash order. */
#ifndef ARCLAMP_KEYEDHASH_H
#define ARCLAMP_KEYEDHASH_H

#include <stddef.h>
#include <stdint.h>

#define KEYEDHASH_KEY_BYTES 16

/* A 128-bit hash: identity of a long byte string (arclamp-svg's stacks),
 * where two different strings with one hash would be merged. */
struct keyedhash128 {
    uint64_t low64, high64;
};

/* Draws the process's key from the kernel's random source. Call it once at
 * startup, before any table is filled; the first hash calls it if no one did
 * (the unit tests). Exits the process if no random key can be had. */
void keyedhash_init(void);

/* SipHash-2-4 of the bytes under the process's key. */
uint64_t keyedhash(const void *data, size_t len);

/* The same as keyedhash(), of a NUL-terminated string. */
uint64_t keyedhash_str(const char *s);

/* SipHash-2-4 with a 128-bit output under the process's key. */
struct keyedhash128 keyedhash128(const void *data, size_t len);

static inline int keyedhash128_eq(struct keyedhash128 a, struct keyedhash128 b)
{
    return a.low64 == b.low64 && a.high64 == b.high64;
}

/* SipHash-2-4 under a given key: for the tests (known answers, key
 * independence), never for a table. */
uint64_t keyedhash_with_key(const unsigned char key[KEYEDHASH_KEY_BYTES], const void *data,
                            size_t len);

#endif
