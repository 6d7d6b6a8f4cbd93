/* Tests of the jobs' object-store parts that need no store: the
 * configuration file (jobconf.c: only object_store:, unknown keys refused
 * with FILE:LINE, the section completed and checked), the pages' content
 * types (reportpub.c) and jobfs.c's unchanged-bytes check and private
 * directory. Publishing and drawing are tested against a real Swift
 * (test_store.py). */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobconf.h"
#include "jobfs.h"
#include "reportpub.h"
#include "test-suites.h"
#include "testutil.h"

START_TEST(test_config_binds_the_store_section)
{
    struct job_config cfg;
    char err[512];
    const char *text = "object_store:\n"
                       "  type: swift\n"
                       "  storage_url: http://127.0.0.1:1/v1/AUTH_x\n"
                       "  token: t\n"
                       "  host: eqiad\n"
                       "  from_store: true\n"
                       "  publish: false\n"
                       "  retention_days: 30\n";
    ck_assert_int_eq(job_config_load_string("r.yaml", text, &cfg, err, sizeof err), 0);
    ck_assert_int_eq(cfg.store.conn.kind, OBJSTORE_SWIFT);
    ck_assert_str_eq(cfg.store.host, "eqiad");
    ck_assert_str_eq(cfg.store.container_prefix, "arclamp");
    ck_assert(job_config_from_store(&cfg));
    ck_assert(!job_config_publishes(&cfg));
    ck_assert_uint_eq(cfg.store.nperiods, 2); /* hourly, daily by default */
    ck_assert(cfg.store.retention_days == 30);
    job_config_free(&cfg);
}
END_TEST

START_TEST(test_config_refuses_what_it_does_not_know)
{
    struct job_config cfg;
    char err[512];
    ck_assert_int_eq(job_config_load_string("r.yaml", "object_store:\n  type: none\n"
                                                      "log_formats: [x]\n",
                                            &cfg, err, sizeof err),
                     -1);
    ck_assert_msg(strncmp(err, "r.yaml:3: log_formats: ", 23) == 0, "%s", err);
    ck_assert_int_eq(job_config_load_string("r.yaml", "object_store:\n  type: ftp\n", &cfg, err,
                                            sizeof err),
                     -1);
    ck_assert_msg(strstr(err, "r.yaml:2: object_store.type") != NULL, "%s", err);
    /* incomplete: a swift store without auth */
    setenv("ST_AUTH", "", 1);
    setenv("OS_STORAGE_URL", "", 1);
    ck_assert_int_eq(job_config_load_string("r.yaml", "object_store:\n  type: swift\n", &cfg,
                                            err, sizeof err),
                     -1);
    ck_assert_msg(strstr(err, "r.yaml:") == err && strstr(err, "object_store"), "%s", err);
    unsetenv("ST_AUTH");
    unsetenv("OS_STORAGE_URL");
    /* an empty file, or none: no store */
    ck_assert_int_eq(job_config_load_string("r.yaml", "", &cfg, err, sizeof err), 0);
    ck_assert_int_eq(cfg.store.conn.kind, OBJSTORE_NONE);
    ck_assert(!job_config_publishes(&cfg) && !job_config_from_store(&cfg));
    job_config_free(&cfg);
}
END_TEST

START_TEST(test_content_types)
{
    ck_assert_str_eq(reportpub_content_type("index.html"), "text/html; charset=utf-8");
    ck_assert_str_eq(reportpub_content_type("a.all.svg"), "image/svg+xml");
    ck_assert_str_eq(reportpub_content_type("a.json"), "application/json");
    ck_assert_ptr_null(reportpub_content_type("a.runs"));
    ck_assert_ptr_null(reportpub_content_type(".html"));
    ck_assert_ptr_null(reportpub_content_type("a.svgz"));
}
END_TEST

START_TEST(test_same_bytes_and_private_dir)
{
    char *dir = tmpdir_make();
    char *f = path_join(dir, "index.html");
    file_write(f, "<p>x</p>\n", 9);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    ck_assert(jobfs_same_bytes(fd, "index.html", "<p>x</p>\n", 9));
    ck_assert(!jobfs_same_bytes(fd, "index.html", "<p>y</p>\n", 9));
    ck_assert(!jobfs_same_bytes(fd, "index.html", "<p>x</p>\n\n", 10));
    ck_assert(!jobfs_same_bytes(fd, "missing.html", "", 0));
    free(f);
    f = path_join(dir, "link.html");
    ck_assert_int_eq(symlink("index.html", f), 0); /* not followed */
    ck_assert(!jobfs_same_bytes(fd, "link.html", "<p>x</p>\n", 9));
    close(fd);
    free(f);

    char err[512];
    int pfd = jobfs_private_dir(dir, err, sizeof err);
    ck_assert_msg(pfd >= 0, "%s", err);
    struct stat st;
    ck_assert_int_eq(fstat(pfd, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0700);
    close(pfd);
    char *priv = path_join(dir, JOBFS_PRIVATE_DIR);
    chmod(priv, 0755); /* opened up: refused */
    ck_assert_int_lt(jobfs_private_dir(dir, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "refused") != NULL, "%s", err);
    free(priv);
    tmpdir_remove(dir);
}
END_TEST

Suite *store_suite(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_config_binds_the_store_section);
    tcase_add_test(tc, test_config_refuses_what_it_does_not_know);
    tcase_add_test(tc, test_content_types);
    tcase_add_test(tc, test_same_bytes_and_private_dir);
    suite_add_tcase(s, tc);
    return s;
}
