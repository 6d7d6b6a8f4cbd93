/* The arclamp-report unit test runner: every suite of arclamp-report/tests. */
#include <check.h>
#include <stdlib.h>

#include "test-suites.h"
#include "testutil.h"

int main(void)
{
    test_tmp_root_init();
    SRunner *sr = srunner_create(xhprof_suite());
    srunner_add_suite(sr, run_suite());
    srunner_add_suite(sr, tiers_suite());
    srunner_add_suite(sr, callgraph_suite());
    srunner_add_suite(sr, store_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    test_tmp_root_cleanup();
    return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
