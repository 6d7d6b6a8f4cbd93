/* The arclamp-svg unit test runner: every suite of arclamp-svg/tests. */
#include <stdlib.h>

#include "log.h"
#include "test-suites.h"

int main(void)
{
    log_setup("test-arclamp-svg", LOG_TARGET_STDERR);
    log_set_max_priority(getenv("ARCLAMP_TEST_QUIET") ? -1 : LOG_DEBUG);

    test_tmp_root_init();
    SRunner *sr = srunner_create(xmlesc_suite());
    srunner_add_suite(sr, flame_suite());
    srunner_add_suite(sr, input_suite());
    srunner_add_suite(sr, palette_suite());
    srunner_add_suite(sr, svg_suite());
    srunner_add_suite(sr, gen_config_suite());
    srunner_add_suite(sr, generate_suite());
    srunner_add_suite(sr, compress_suite());
    srunner_add_suite(sr, top_suite());
    srunner_add_suite(sr, runstate_suite());
    srunner_add_suite(sr, diffmerge_suite());
    srunner_add_suite(sr, logpick_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    test_tmp_root_cleanup();
    return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
