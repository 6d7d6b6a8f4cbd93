/* keyedhash: SipHash-2-4 under a random key per process (see keyedhash.h).
 *
 * libsodium (Debian's libsodium-dev) provides both halves: crypto_shorthash
 * is SipHash-2-4 with a 64-bit output, crypto_shorthash_siphashx24 the
 * 128-bit variant, and randombytes_buf draws the key from getrandom(2). A
 * maintained implementation of a keyed hash is worth more than a copy of
 * our own. */
#include "keyedhash.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The key is process-wide on purpose: every table of the process hashes
 * with it, so one key must serve them all, and a table that was filled
 * under one key could not be searched under another. It is written once, by
 * keyedhash_init() at startup (the programs are single-threaded), and only
 * read afterwards. */
static unsigned char process_key[crypto_shorthash_KEYBYTES];
static int process_key_ready;

_Static_assert(crypto_shorthash_KEYBYTES == KEYEDHASH_KEY_BYTES, "SipHash keys are 128 bits");
_Static_assert(crypto_shorthash_siphashx24_KEYBYTES == KEYEDHASH_KEY_BYTES,
               "SipHash keys are 128 bits");

void keyedhash_init(void)
{
    if (process_key_ready)
        return;
    if (sodium_init() < 0) {
        fputs("keyedhash: libsodium cannot be initialised (no random source?)\n", stderr);
        exit(EXIT_FAILURE);
    }
    randombytes_buf(process_key, sizeof process_key);
    process_key_ready = 1;
}

/* SipHash's output is little-endian bytes; read as a number on any host. */
static uint64_t load_le64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | b[i];
    return v;
}

uint64_t keyedhash_with_key(const unsigned char key[KEYEDHASH_KEY_BYTES], const void *data,
                            size_t len)
{
    unsigned char out[crypto_shorthash_BYTES];
    crypto_shorthash(out, data, len, key);
    return load_le64(out);
}

uint64_t keyedhash(const void *data, size_t len)
{
    if (!process_key_ready)
        keyedhash_init();
    return keyedhash_with_key(process_key, data, len);
}

uint64_t keyedhash_str(const char *s)
{
    return keyedhash(s, strlen(s));
}

struct keyedhash128 keyedhash128(const void *data, size_t len)
{
    if (!process_key_ready)
        keyedhash_init();
    unsigned char out[crypto_shorthash_siphashx24_BYTES];
    crypto_shorthash_siphashx24(out, data, len, process_key);
    return (struct keyedhash128){load_le64(out), load_le64(out + 8)};
}
