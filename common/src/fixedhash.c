/* fixedhash: FNV-1a 64, the unkeyed hash. See fixedhash.h. */
#include "fixedhash.h"

uint64_t fixedhash_fnv1a64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}
