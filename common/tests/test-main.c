/* The common unit test runner: every suite of common/tests. */
#include <stdio.h>
#include <stdlib.h>

#include "test-suites.h"

int main(void)
{
    SRunner *sr = srunner_create(stackline_suite());
    srunner_add_suite(sr, stackline_ref_suite());
    srunner_add_suite(sr, strbuf_suite());
    srunner_add_suite(sr, log_suite());
    srunner_add_suite(sr, yamldoc_suite());
    srunner_add_suite(sr, conftable_suite());
    srunner_add_suite(sr, netaddr_suite());
    srunner_add_suite(sr, clock_suite());
    srunner_add_suite(sr, cpuclock_suite());
    srunner_add_suite(sr, phpser_suite());
    srunner_add_suite(sr, runline_suite());
    srunner_add_suite(sr, tierhist_suite());
    srunner_add_suite(sr, tierline_suite());
    srunner_add_suite(sr, linefields_suite());
    srunner_add_suite(sr, redisconn_suite());
    srunner_add_suite(sr, numtext_suite());
    srunner_add_suite(sr, reportsummary_suite());
    srunner_add_suite(sr, keyedhash_suite());
    srunner_add_suite(sr, tiertable_suite());
    srunner_add_suite(sr, fixedhash_suite());
    srunner_add_suite(sr, dlist_suite());
    srunner_add_suite(sr, vec_suite());
    srunner_add_suite(sr, hashidx_suite());
    srunner_add_suite(sr, objstore_suite());
    srunner_add_suite(sr, storeup_suite());
    srunner_add_suite(sr, rediscluster_suite());
    srunner_add_suite(sr, pprof_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
