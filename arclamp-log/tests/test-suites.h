/* Suites and shared helpers of the arclamp-log unit test runner
 * (build/tests/test-arclamp-log). */
#ifndef ARCLAMP_LOG_TEST_SUITES_H
#define ARCLAMP_LOG_TEST_SUITES_H

#include <check.h>
#include <stddef.h>
#include <time.h>

Suite *config_suite(void);
Suite *bucket_suite(void);
Suite *retention_suite(void);
Suite *tracefile_suite(void);
Suite *ingest_suite(void);
Suite *stats_suite(void);

/* 2026-11-22T05:50:01Z: buckets "2026-11-22_05" (hourly), "2026-11-22" (daily). */
#define TEST_NOW ((time_t)1795326601)

/* test-util.c: temporary directories and files. */
void test_tmp_root_init(void);            /* main(): one directory for the whole run */
void test_tmp_root_cleanup(void);         /* main(): removes it and all left in it */
char *tmpdir_make(void);                  /* a new directory in the run's directory */
void tmpdir_remove(char *dir);            /* removes the tree and frees `dir` */
char *path_join(const char *a, const char *b); /* "a/b", malloc'd */
char *file_read(const char *path, size_t *len); /* NUL-terminated, malloc'd; NULL if missing */
void file_write(const char *path, const char *data, size_t len);
void file_set_mtime(const char *path, time_t t);
int path_exists(const char *path);        /* lstat succeeds */
long file_size(const char *path);         /* -1 if missing */
size_t count_char(const char *s, size_t len, char c);
int dir_count_entries(const char *dir);   /* entries except . and .., -1 on error */

#endif
