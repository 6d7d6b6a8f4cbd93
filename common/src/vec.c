/* vec: growing an array by doubling. See vec.h. */
#include "vec.h"
#include "strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void *vec_reserve(void *v, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return v;
    size_t n = *cap ? *cap : (first ? first : 1);
    while (n < need) {
        if (n > SIZE_MAX / 2)
            n = need;
        else
            n *= 2;
    }
    if (size && n > SIZE_MAX / size) {
        fprintf(stderr, "arclamp: array of %zu elements of %zu bytes: too large\n", n, size);
        abort();
    }
    v = xrealloc(v, n * size);
    *cap = n;
    return v;
}
