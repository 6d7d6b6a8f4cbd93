/* reportsummary: writing a report's summary and reading its run count back
 * (see reportsummary.h). */
#include "reportsummary.h"

#include <string.h>

#define SUMMARY_START "{\"period\": \""
#define RUNS_KEY "\", \"runs\": "

void report_summary_write(strbuf *out, const struct report_summary *s)
{
    strbuf_appendf(out,
                   SUMMARY_START "%s\", \"name\": \"%s\", \"entrypoint\": \"%s" RUNS_KEY "%zu, "
                   "\"incomplete\": %zu, \"bad_lines\": %zu, \"duplicates\": %zu, "
                   "\"logs\": %zu, \"arcs\": %zu, \"arcs_left_out\": %zu, "
                   "\"inclusive_over_main\": %zu, \"first\": %lld, \"last\": %lld}\n",
                   s->period, s->name, s->entrypoint, s->runs, s->incomplete, s->bad_lines,
                   s->duplicates, s->logs, s->arcs, s->arcs_left_out, s->over_main, s->first,
                   s->last);
}

int report_summary_runs(const char *text, size_t len, unsigned long long *runs)
{
    size_t start = strlen(SUMMARY_START);
    if (len < start || memcmp(text, SUMMARY_START, start) != 0)
        return -1;
    const char *key = memmem(text, len, RUNS_KEY, strlen(RUNS_KEY));
    if (!key)
        return -1;
    const char *p = key + strlen(RUNS_KEY), *end = text + len;
    unsigned long long v = 0;
    size_t digits = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
        if (v > (~0ULL - 9) / 10)
            return -1;
        v = v * 10 + (unsigned)(*p - '0');
    }
    if (digits == 0 || p == end || *p != ',')
        return -1;
    *runs = v;
    return 0;
}
