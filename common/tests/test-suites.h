/* Suites of the common unit test runner (build/tests/test-common). */
#ifndef ARCLAMP_COMMON_TEST_SUITES_H
#define ARCLAMP_COMMON_TEST_SUITES_H

#include <check.h>

Suite *stackline_suite(void);
Suite *stackline_ref_suite(void);
Suite *strbuf_suite(void);
Suite *log_suite(void);
Suite *yamldoc_suite(void);
Suite *conftable_suite(void);
Suite *netaddr_suite(void);
Suite *clock_suite(void);
Suite *cpuclock_suite(void);
Suite *phpser_suite(void);
Suite *runline_suite(void);
Suite *tierhist_suite(void);
Suite *tierline_suite(void);
Suite *linefields_suite(void);
Suite *redisconn_suite(void);
Suite *numtext_suite(void);
Suite *reportsummary_suite(void);
Suite *keyedhash_suite(void);
Suite *tiertable_suite(void);
Suite *fixedhash_suite(void);
Suite *dlist_suite(void);
Suite *vec_suite(void);
Suite *hashidx_suite(void);
Suite *objstore_suite(void);
Suite *storeup_suite(void);
Suite *rediscluster_suite(void);
Suite *pprof_suite(void);

#endif
