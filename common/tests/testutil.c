/* testutil: temporary trees and files for the unit test runners. */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strbuf.h"
#include <check.h>

#include "testutil.h"

/* Every test directory is made inside one directory per runner, which
 * main() removes at the end: a failing assertion ends a forked test with
 * _exit(), before the test could remove its own directory. */
static char *tmp_root;

void test_tmp_root_init(void)
{
    tmp_root = xstrdup("/tmp/arclamp-test-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        exit(1);
    }
}

char *tmpdir_make(void)
{
    char *dir = path_join(tmp_root ? tmp_root : "/tmp", "t-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    /* A test may have left it odd; remove what can be removed. */
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void tmpdir_remove(char *dir)
{
    if (!dir)
        return;
    remove_tree(dir);
    free(dir);
}

void test_tmp_root_cleanup(void)
{
    if (!tmp_root)
        return;
    remove_tree(tmp_root);
    free(tmp_root);
    tmp_root = NULL;
}

char *path_join(const char *a, const char *b)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appendf(&sb, "%s/%s", a, b);
    return sb.data;
}

char *file_read(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    strbuf sb = STRBUF_INIT;
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0)
        strbuf_append(&sb, chunk, (size_t)n);
    close(fd);
    strbuf_cstr(&sb);
    if (len)
        *len = sb.len;
    return sb.data;
}

void file_write(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
}

void file_set_mtime(const char *path, time_t t)
{
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), 0);
}

int path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

long file_size(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return -1;
    return (long)st.st_size;
}

size_t count_char(const char *s, size_t len, char c)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += s[i] == c;
    return n;
}

int dir_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    }
    closedir(d);
    return n;
}
