/* The arclamp-log unit test runner: every suite of arclamp-log/tests. */
#include <stdlib.h>

#include "log.h"
#include "test-suites.h"

int main(void)
{
    /* The modules log through log_event: to stderr, so the logging paths run
     * under the sanitizers too. ARCLAMP_TEST_QUIET=1 silences them. */
    log_setup("test-arclamp-log", LOG_TARGET_STDERR);
    log_set_max_priority(getenv("ARCLAMP_TEST_QUIET") ? -1 : LOG_DEBUG);

    test_tmp_root_init();
    SRunner *sr = srunner_create(config_suite());
    srunner_add_suite(sr, bucket_suite());
    srunner_add_suite(sr, retention_suite());
    srunner_add_suite(sr, tracefile_suite());
    srunner_add_suite(sr, ingest_suite());
    srunner_add_suite(sr, stats_suite());
    srunner_add_suite(sr, runs_suite());
    srunner_add_suite(sr, tiers_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    test_tmp_root_cleanup();
    return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
