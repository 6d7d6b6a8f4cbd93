/* The suites of the arclamp-report unit test runner (test-main.c). */
#ifndef ARCLAMP_REPORT_TEST_SUITES_H
#define ARCLAMP_REPORT_TEST_SUITES_H

#include <check.h>

Suite *xhprof_suite(void);
Suite *run_suite(void);
Suite *tiers_suite(void);
Suite *callgraph_suite(void);
Suite *store_suite(void);

#endif
