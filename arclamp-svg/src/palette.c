/* palette: box colours (see palette.h).
 *
 * flamegraph.pl draws its "random" values v1..v3 in [0, 1) per box; we take
 * them from XXH3 of the name (two seeds), so colours never change between
 * runs, graphs or days, and the palettes' formulas stay those users know. */
#include "palette.h"

#include <string.h>
#include <xxhash.h>

static const char *const palette_names[PALETTE_COUNT] = {
    "hot", "mem", "io", "wakeup", "chain", "java", "js", "perl",
    "red", "green", "blue", "aqua", "yellow", "purple", "orange",
};

static const char *const background_names[BG_COUNT] = {
    "auto", "yellow", "blue", "green", "grey",
};

int palette_from_name(const char *name)
{
    for (int i = 0; i < PALETTE_COUNT; i++) {
        if (strcmp(name, palette_names[i]) == 0)
            return i;
    }
    return -1;
}

const char *palette_name(enum palette p)
{
    return (unsigned)p < PALETTE_COUNT ? palette_names[p] : "hot";
}

int background_from_name(const char *name)
{
    if (strcmp(name, "gray") == 0 || strcmp(name, "flat") == 0)
        return BG_GREY;
    for (int i = 0; i < BG_COUNT; i++) {
        if (strcmp(name, background_names[i]) == 0)
            return i;
    }
    return -1;
}

/* A value in [0, 1) from the name. */
static double name_value(const char *name, size_t len, uint64_t seed)
{
    return (double)(XXH3_64bits_withSeed(name, len, seed) >> 11) * 0x1.0p-53;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static int contains(const char *s, size_t len, const char *needle)
{
    return memmem(s, len, needle, strlen(needle)) != NULL;
}

static struct rgb rgb(double r, double g, double b)
{
    return (struct rgb){(unsigned char)r, (unsigned char)g, (unsigned char)b};
}

/* flamegraph.pl's formulas, one per palette: the themes (hot, mem, io) use
 * up to three values, the flat hues one. */
struct rgb palette_formula(enum palette p, double v1, double v2, double v3)
{
    switch (p) {
    case PALETTE_MEM: return rgb(0, 190 + (int)(50 * v2), (int)(210 * v1));
    case PALETTE_IO: return rgb(80 + (int)(60 * v1), 80 + (int)(60 * v1), 190 + (int)(55 * v2));
    case PALETTE_RED: return rgb(200 + (int)(55 * v1), 50 + (int)(80 * v1), 50 + (int)(80 * v1));
    case PALETTE_GREEN: return rgb(50 + (int)(60 * v1), 200 + (int)(55 * v1), 50 + (int)(60 * v1));
    case PALETTE_BLUE: return rgb(80 + (int)(60 * v1), 80 + (int)(60 * v1), 205 + (int)(50 * v1));
    case PALETTE_AQUA: return rgb(50 + (int)(60 * v1), 165 + (int)(55 * v1), 165 + (int)(55 * v1));
    case PALETTE_YELLOW: return rgb(175 + (int)(55 * v1), 175 + (int)(55 * v1), 50 + (int)(20 * v1));
    case PALETTE_PURPLE: return rgb(190 + (int)(65 * v1), 80 + (int)(60 * v1), 190 + (int)(65 * v1));
    case PALETTE_ORANGE: return rgb(190 + (int)(65 * v1), 90 + (int)(65 * v1), 0);
    default: return rgb(205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));   /* hot */
    }
}

/* Java: JIT-compiled and inlined frames by their annotations, then Java
 * by package (a class path such as java/lang or Lorg/), perf-map-agent's
 * ":::", C++'s "::", the kernel; the rest is system code. */
static enum palette java_hue(const char *name, size_t len)
{
    static const char *const packages[] = {"java/", "javax/", "jdk/", "net/", "org/",
                                           "com/", "io/", "sun/"};
    if (ends_with(name, len, "_[j]"))
        return PALETTE_GREEN;
    if (ends_with(name, len, "_[i]"))
        return PALETTE_AQUA;
    size_t skip = len > 0 && name[0] == 'L';   /* /^L?(java|...)\// */
    for (size_t i = 0; i < sizeof(packages) / sizeof(packages[0]); i++) {
        if (len - skip >= strlen(packages[i]) &&
            memcmp(name + skip, packages[i], strlen(packages[i])) == 0)
            return PALETTE_GREEN;
    }
    if (contains(name, len, ":::"))
        return PALETTE_GREEN;
    if (contains(name, len, "::"))
        return PALETTE_YELLOW;
    return ends_with(name, len, "_[k]") ? PALETTE_ORANGE : PALETTE_RED;
}

/* Perl: C++ "::" first (Perl's own packages use it too), then Perl code
 * ("Perl" or ".pl" anywhere), the kernel; the rest is system code. */
static enum palette perl_hue(const char *name, size_t len)
{
    if (contains(name, len, "::"))
        return PALETTE_YELLOW;
    if (contains(name, len, "Perl") || contains(name, len, ".pl"))
        return PALETTE_GREEN;
    return ends_with(name, len, "_[k]") ? PALETTE_ORANGE : PALETTE_RED;
}

/* JavaScript: JIT frames are source (with a path) or builtins, then C++,
 * a ".js" after a "/", builtins (a ":"), the missing symbol " ", the kernel
 * ("_[k]" anywhere here); the rest is system code. */
static enum palette js_hue(const char *name, size_t len)
{
    if (ends_with(name, len, "_[j]"))
        return contains(name, len, "/") ? PALETTE_GREEN : PALETTE_AQUA;
    if (contains(name, len, "::"))
        return PALETTE_YELLOW;
    const char *slash = memchr(name, '/', len);
    if (slash && contains(slash, len - (size_t)(slash - name), ".js"))   /* m:/.*\.js: */
        return PALETTE_GREEN;
    if (memchr(name, ':', len))
        return PALETTE_AQUA;
    if (len == 1 && name[0] == ' ')
        return PALETTE_GREEN;
    return contains(name, len, "_[k]") ? PALETTE_ORANGE : PALETTE_RED;
}

enum palette palette_hue(enum palette p, const char *name, size_t len)
{
    switch (p) {
    case PALETTE_JAVA: return java_hue(name, len);
    case PALETTE_PERL: return perl_hue(name, len);
    case PALETTE_JS: return js_hue(name, len);
    case PALETTE_WAKEUP: return PALETTE_AQUA;
    case PALETTE_CHAIN: return contains(name, len, "_[w]") ? PALETTE_AQUA : PALETTE_BLUE;
    default: return p;
    }
}

struct rgb palette_color(enum palette p, const char *name, size_t len)
{
    return palette_formula(palette_hue(p, name, len), name_value(name, len, 1),
                           name_value(name, len, 2), name_value(name, len, 3));
}

struct rgb palette_diff_color(double delta, double max_delta, int negate)
{
    if (negate)
        delta = -delta;
    if (max_delta <= 0 || delta == 0)
        return rgb(255, 255, 255);
    double mag = delta < 0 ? -delta : delta;
    int fade = (int)(210 * (max_delta - mag) / max_delta);
    return delta > 0 ? rgb(255, fade, fade) : rgb(fade, fade, 255);
}

void background_stops(enum background bg, enum palette p, const char **top, const char **bottom)
{
    if (bg == BG_AUTO) {
        switch (p) {
        case PALETTE_HOT: case PALETTE_JAVA: case PALETTE_JS: case PALETTE_PERL:
            bg = BG_YELLOW; break;
        case PALETTE_IO: case PALETTE_WAKEUP: case PALETTE_CHAIN: bg = BG_BLUE; break;
        case PALETTE_MEM: bg = BG_GREEN; break;
        default: bg = BG_GREY;
        }
    }
    switch (bg) {
    case BG_BLUE: *top = "#eeeeee", *bottom = "#e0e0ff"; break;
    case BG_GREEN: *top = "#eef2ee", *bottom = "#e0ffe0"; break;
    case BG_GREY: *top = "#f8f8f8", *bottom = "#e8e8e8"; break;
    default: *top = "#eeeeee", *bottom = "#eeeeb0";
    }
}
