/* tiertable-gen: request-tier tables for the report benchmark, written by
 * the project's own tier table (common/src/tiertable.c) as arclamp-log
 * writes them: per hour, <dir>/hourly/<bucket>.tiers (60 merged minutes
 * of tier lines, the source of truth) and its view <bucket>.tiers.json.
 *
 * Each hour has IDS identities ("identity-N") of TIERS tiers each
 * (_total and "tier-N"), every minute a few calls per tier with times
 * spread over three decades (so histograms have several blocks), the
 * heavier identities first; the figures change from hour to hour, so each
 * page's trend has points to draw. Deterministic: the same arguments
 * write the same bytes.
 *
 * Usage: tiertable-gen DIR HOURS IDS TIERS
 * Exit status: 0, 1 when a file cannot be written, 64 for bad usage. */
#include "strbuf.h"
#include "tiertable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define HOUR0 1795737600 /* 2026-11-27 00:00 UTC */

/* A small deterministic generator (xorshift64): the same tables each run. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* One minute's calls of every identity and tier into t. */
static void add_minute(struct tiertable *t, int hour, int ids, int tiers, uint64_t *rnd)
{
    struct tier_drops drops = {0};
    char name[32], tier[32];
    for (int i = 0; i < ids; i++) {
        snprintf(name, sizeof name, "identity-%d", i);
        for (int k = 0; k < tiers; k++) {
            if (k == 0)
                snprintf(tier, sizeof tier, "%s", TIERLINE_TOTAL);
            else
                snprintf(tier, sizeof tier, "tier-%d", k);
            struct tierhist h = TIERHIST_INIT;
            uint64_t calls = 1 + next_random(rnd) % 8, total = 0;
            for (uint64_t c = 0; c < calls; c++) {
                uint64_t ns = (uint64_t)(ids - i) * 1000 * (uint64_t)(hour + 10) *
                              (1 + next_random(rnd) % 1000) / (uint64_t)(k + 1);
                tierhist_add(&h, ns);
                total += ns;
            }
            tiertable_add(t, name, strlen(name), tier, strlen(tier), calls, total, &h, &drops);
            tierhist_reset(&h);
        }
    }
    struct tier_status s = {(uint64_t)ids * 50, (uint64_t)ids * 5, 0, 0, 0, 0};
    tiertable_add_status(t, &s);
}

static int write_file(const char *path, const strbuf *text)
{
    FILE *f = fopen(path, "w");
    int ok = f && fwrite(text->data, 1, text->len, f) == text->len;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        perror(path);
    return ok ? 0 : -1;
}

/* Hour h's two files. */
static int write_hour(const char *dir, int h, int ids, int tiers)
{
    struct tiertable bucket, minute;
    /* the bucket's table within arclamp-log's default limits (its
     * max_tier_identities, 1000), as its JSON view would be: with IDS
     * alone, the histogram budget dropped lines the .tiers file has */
    tiertable_init(&bucket, 1000);
    tiertable_init(&minute, (size_t)ids);
    uint64_t rnd = 0x9e3779b97f4a7c15ULL + (uint64_t)h;
    strbuf lines = STRBUF_INIT, json = STRBUF_INIT;
    struct tier_drops drops = {0};
    time_t start = HOUR0 + 3600 * (time_t)h;
    for (int m = 0; m < 60; m++) {
        add_minute(&minute, h, ids, tiers, &rnd);
        tiertable_format_lines(&minute, start + 60 * m, start + 60 * (m + 1), &lines);
        tiertable_merge(&bucket, &minute, &drops);
        tiertable_reset(&minute);
    }
    char name[64], path[4096];
    struct tm tm;
    gmtime_r(&start, &tm);
    strftime(name, sizeof name, "%Y-%m-%d_%H.excimer", &tm);
    struct tier_header head = {"hourly", name, start, start + 3600, 60};
    tiertable_format_json(&bucket, &head, &json);
    snprintf(path, sizeof path, "%s/hourly/%s" LAYOUT_TIERS_SUFFIX, dir, name);
    int rc = write_file(path, &lines);
    snprintf(path, sizeof path, "%s/hourly/%s" LAYOUT_TIERS_JSON_SUFFIX, dir, name);
    rc |= write_file(path, &json);
    strbuf_free(&lines);
    strbuf_free(&json);
    tiertable_reset(&bucket);
    tiertable_reset(&minute);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 5 || atoi(argv[2]) < 1 || atoi(argv[3]) < 1 || atoi(argv[4]) < 1) {
        fprintf(stderr, "usage: tiertable-gen DIR HOURS IDS TIERS\n");
        return 64;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/hourly", argv[1]);
    mkdir(argv[1], 0755);
    mkdir(path, 0755);
    for (int h = 0; h < atoi(argv[2]); h++) {
        if (write_hour(argv[1], h, atoi(argv[3]), atoi(argv[4])) < 0)
            return 1;
    }
    return 0;
}
