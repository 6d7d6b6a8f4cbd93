/* testutil: temporary trees and files for the unit test runners of every
 * program (linked into each runner). */
#ifndef ARCLAMP_TESTUTIL_H
#define ARCLAMP_TESTUTIL_H

#include <stddef.h>
#include <time.h>

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
