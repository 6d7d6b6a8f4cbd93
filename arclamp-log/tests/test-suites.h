/* Suites and shared helpers of the arclamp-log unit test runner
 * (build/tests/test-arclamp-log). */
#ifndef ARCLAMP_LOG_TEST_SUITES_H
#define ARCLAMP_LOG_TEST_SUITES_H

#include <check.h>
#include <stddef.h>
#include <time.h>

#include "testutil.h"

Suite *config_suite(void);
Suite *bucket_suite(void);
Suite *retention_suite(void);
Suite *tracefile_suite(void);
Suite *ingest_suite(void);
Suite *stats_suite(void);
Suite *runs_suite(void);
Suite *tiers_suite(void);

/* 2026-11-22T05:50:01Z: buckets "2026-11-22_05" (hourly), "2026-11-22" (daily). */
#define TEST_NOW ((time_t)1795326601)

#endif
