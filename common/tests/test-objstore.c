/* Tests of objstore without a store: the name rule, the settings file and
 * checks, and the listing parsers fed hostile pages as literals (the live
 * round trips are in test_objstore_live.py). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objstore.h"
#include "objstore_parse.h"
#include "strbuf.h"
#include "test-suites.h"
#include "testutil.h"

START_TEST(name_ok_accepts_plain_and_unicode_names)
{
    ck_assert(objstore_name_ok("a"));
    ck_assert(objstore_name_ok("2026-11-22/all.log.gz"));
    ck_assert(objstore_name_ok("a b/c%20d?e#f"));
    ck_assert(objstore_name_ok("dir/\xc3\xbcn\xc3\xaf.log"));
    ck_assert(objstore_name_ok("a/.hidden/..x"));
}
END_TEST

START_TEST(name_ok_refuses_hostile_names)
{
    const char *bad[] = {"", "../x", "x/..", "a//b", "/a", "a/./b", ".", "a/", "a\nb", "a\rb",
                         "a\x01", "a\x7f", "\xc3", "\xff", "\xed\xa0\x80", "\xc0\xaf"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(!objstore_name_ok(bad[i]), "accepted #%zu", i);
    ck_assert(!objstore_name_ok(NULL));
}
END_TEST

START_TEST(name_ok_bounds_the_length)
{
    char name[1026];
    memset(name, 'a', 1024);
    name[1024] = '\0';
    ck_assert(objstore_name_ok(name));
    name[1024] = 'a';
    name[1025] = '\0';
    ck_assert(!objstore_name_ok(name));
}
END_TEST

static char *secret_file(const char *dir, const char *text, mode_t mode)
{
    char *path = path_join(dir, "creds");
    file_write(path, text, strlen(text));
    ck_assert_int_eq(chmod(path, mode), 0);
    return path;
}

static void free_cfg(struct objstore_config *c)
{
    free(c->auth_url);
    free(c->user);
    free(c->key);
    free(c->storage_url);
    free(c->token);
    free(c->endpoint);
    free(c->region);
    free(c->access_key);
    free(c->secret_key);
}

START_TEST(config_file_is_read_when_private)
{
    char *dir = tmpdir_make();
    char *path = secret_file(dir, "# swift\n\nST_AUTH=http://127.0.0.1:1/auth/v1.0\n"
                                  "  ST_USER = test:tester \nST_KEY=k=ey\r\n", 0600);
    struct objstore_config c = {.kind = OBJSTORE_SWIFT, .key = xstrdup("given")};
    char err[256] = "";
    ck_assert_int_eq(objstore_config_from_file(&c, path, err, sizeof(err)), 0);
    ck_assert_str_eq(c.auth_url, "http://127.0.0.1:1/auth/v1.0");
    ck_assert_str_eq(c.user, "test:tester");
    ck_assert_str_eq(c.key, "given"); /* set fields are kept */
    ck_assert_int_eq(objstore_config_check(&c, err, sizeof(err)), 0);
    free_cfg(&c);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(config_file_readable_by_others_is_refused)
{
    char *dir = tmpdir_make();
    char *path = secret_file(dir, "ST_KEY=x\n", 0644);
    struct objstore_config c = {0};
    char err[256] = "";
    ck_assert_int_eq(objstore_config_from_file(&c, path, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "group or others"));
    ck_assert_ptr_null(c.key);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

/* systemd's credential (root's 0400 plus an ACL entry, shown as 0440) is
 * read in $CREDENTIALS_DIRECTORY only; anywhere else 0440 is refused. */
START_TEST(config_file_as_a_systemd_credential)
{
    char *dir = tmpdir_make();
    char *path = secret_file(dir, "ST_KEY=x\n", 0440);
    struct objstore_config c = {0};
    char err[256] = "";
    unsetenv("CREDENTIALS_DIRECTORY");
    ck_assert_int_eq(objstore_config_from_file(&c, path, err, sizeof(err)), -1);
    setenv("CREDENTIALS_DIRECTORY", dir, 1);
    ck_assert_int_eq(objstore_config_from_file(&c, path, err, sizeof(err)), 0);
    ck_assert_str_eq(c.key, "x");
    chmod(path, 0444); /* others may read: never */
    free(c.key);
    c.key = NULL;
    ck_assert_int_eq(objstore_config_from_file(&c, path, err, sizeof(err)), -1);
    unsetenv("CREDENTIALS_DIRECTORY");
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(config_file_symlink_and_unknown_key_are_refused)
{
    char *dir = tmpdir_make();
    char *path = secret_file(dir, "ST_KYE=x\n", 0600);
    struct objstore_config c = {0};
    char err[512] = "";
    ck_assert_int_eq(objstore_config_from_file(&c, path, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, ":1: unknown key"));
    char *link = path_join(dir, "link");
    ck_assert_int_eq(symlink(path, link), 0);
    ck_assert_int_eq(objstore_config_from_file(&c, link, err, sizeof(err)), -1);
    free(link);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(config_check_wants_complete_settings)
{
    char err[256];
    struct objstore_config c = {.kind = OBJSTORE_SWIFT};
    ck_assert_int_eq(objstore_config_check(&c, err, sizeof(err)), -1);
    c.auth_url = "ftp://x/auth";
    c.user = "a:b";
    c.key = "k";
    ck_assert_int_eq(objstore_config_check(&c, err, sizeof(err)), -1);
    c.auth_url = "https://x/auth/v1.0";
    ck_assert_int_eq(objstore_config_check(&c, err, sizeof(err)), 0);
    c.retries = -1;
    ck_assert_int_eq(objstore_config_check(&c, err, sizeof(err)), -1);
    struct objstore_config s3 = {.kind = OBJSTORE_S3, .endpoint = "http://127.0.0.1:9",
                                 .access_key = "a:b", .secret_key = "s"};
    ck_assert_int_eq(objstore_config_check(&s3, err, sizeof(err)), -1); /* no bucket */
    s3.bucket = "b/c";
    ck_assert_int_eq(objstore_config_check(&s3, err, sizeof(err)), -1);
    s3.bucket = "arclamp";
    ck_assert_int_eq(objstore_config_check(&s3, err, sizeof(err)), 0);
    struct objstore_config none = {.kind = OBJSTORE_NONE};
    ck_assert_int_eq(objstore_config_check(&none, err, sizeof(err)), 0);
    ck_assert_str_eq(objstore_kind_name(OBJSTORE_S3), "s3");
}
END_TEST

START_TEST(open_refuses_incomplete_config_and_bad_names_send_nothing)
{
    char err[256];
    struct objstore_config c = {.kind = OBJSTORE_SWIFT};
    ck_assert_ptr_null(objstore_open(&c, err, sizeof(err)));
    /* Port 9 (discard) is never asked: names are checked first. */
    c.storage_url = "http://127.0.0.1:9/v1/AUTH_x";
    c.token = "t";
    struct objstore *st = objstore_open(&c, err, sizeof(err));
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(objstore_delete(st, "c", "../etc/passwd", err, sizeof(err)), OBJ_REFUSED);
    ck_assert_int_eq(objstore_delete(st, "a/b", "x", err, sizeof(err)), OBJ_REFUSED);
    ck_assert_int_eq(objstore_list(st, "c", "../", NULL, NULL, err, sizeof(err)), OBJ_REFUSED);
    ck_assert_uint_eq(objstore_stats(st)->requests, 0);
    ck_assert_uint_eq(objstore_stats(st)->failures, 3);
    objstore_close(st);
}
END_TEST

START_TEST(parse_time_reads_both_stores_forms)
{
    ck_assert_int_eq(objstore_parse_time("1970-01-01T00:00:00"), 0);
    ck_assert_int_eq(objstore_parse_time("2026-11-22T05:00:00.123456"), 1795323600);
    ck_assert_int_eq(objstore_parse_time("2026-11-22T05:00:00.000Z"), 1795323600);
    ck_assert_int_eq(objstore_parse_time("2024-02-29T00:00:00Z"), 1709164800);
    ck_assert_int_eq(objstore_parse_time("2023-02-29T00:00:00Z"), -1);
    ck_assert_int_eq(objstore_parse_time("2026-11-22 05:00:00"), -1);
    ck_assert_int_eq(objstore_parse_time("2026-11-22T05:00:00.Z"), -1);
    ck_assert_int_eq(objstore_parse_time("2026-11-22T05:00:00+01:00"), -1);
    ck_assert_int_eq(objstore_parse_time(""), -1);
}
END_TEST

/* Collects the names a parser gives, "|"-joined. */
static int collect(const struct objstore_item *it, void *arg)
{
    strbuf *sb = arg;
    strbuf_appendf(sb, "%s,%s,%llu,%lld|", it->name, it->hash, (unsigned long long)it->bytes,
                   (long long)it->last_modified_s);
    return 0;
}

static int swift(const char *body, const char *prefix, const char *after, strbuf *out,
                 struct objstore_page *page, char *err)
{
    strbuf_reset(out);
    return objstore_parse_swift_page(body, strlen(body), prefix, after, collect, out, page, err,
                                     256);
}

#define ITEM(n) "{\"name\":\"" n "\",\"hash\":\"d41d8cd98f00b204e9800998ecf8427e\",\"bytes\":3," \
                "\"last_modified\":\"1970-01-01T00:00:10.5\",\"content_type\":\"text/plain\"}"

START_TEST(swift_page_gives_items_and_the_last_name)
{
    strbuf out = STRBUF_INIT;
    struct objstore_page page;
    char err[256];
    ck_assert_int_eq(swift("[" ITEM("p/a") "," ITEM("p/b") "]", "p/", NULL, &out, &page, err),
                     OBJ_OK);
    ck_assert_str_eq(strbuf_cstr(&out), "p/a,d41d8cd98f00b204e9800998ecf8427e,3,10|"
                                        "p/b,d41d8cd98f00b204e9800998ecf8427e,3,10|");
    ck_assert_uint_eq(page.count, 2);
    ck_assert_str_eq(page.last, "p/b");
    objstore_page_free(&page);
    ck_assert_int_eq(swift(" [] \n", NULL, NULL, &out, &page, err), OBJ_OK);
    ck_assert_ptr_null(page.last);
    strbuf_free(&out);
}
END_TEST

START_TEST(swift_page_refuses_lies)
{
    strbuf out = STRBUF_INIT;
    struct objstore_page page;
    char err[256];
    const struct {
        const char *body, *prefix, *after, *why;
    } cases[] = {
        {"[" ITEM("a"), NULL, NULL, "not well-formed"},
        {"{\"name\":\"a\"}", NULL, NULL, "not an array"},
        {"[" ITEM("a") "] x", NULL, NULL, "not well-formed"},
        {"[" ITEM("q/a") "]", "p/", NULL, "outside the prefix"},
        {"[" ITEM("b") "," ITEM("a") "]", NULL, NULL, "do not advance"},
        {"[" ITEM("a") "]", NULL, "a", "do not advance"},
        {"[{\"subdir\":\"a/\"}]", NULL, NULL, "no string \"name\""},
        {"[{\"name\":\"a\",\"bytes\":\"3\",\"hash\":\"x\",\"last_modified\":\"x\"}]", NULL, NULL,
         "bytes"},
        {"[{\"name\":\"a\",\"bytes\":-1,\"hash\":\"x\",\"last_modified\":\"x\"}]", NULL, NULL,
         "bytes"},
        {"[{\"name\":\"a\",\"bytes\":1,\"hash\":7,\"last_modified\":\"x\"}]", NULL, NULL,
         "not a short string"},
        {"[{\"name\":\"a\\u0000b\",\"bytes\":1,\"hash\":\"x\",\"last_modified\":\"x\"}]", NULL,
         NULL, "NUL byte"},
        {"[[[[[[[[[[1]]]]]]]]]]", NULL, NULL, "not well-formed"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        err[0] = '\0';
        ck_assert_int_eq(swift(cases[i].body, cases[i].prefix, cases[i].after, &out, &page, err),
                         OBJ_REFUSED);
        ck_assert_msg(strstr(err, cases[i].why), "case %zu: %s", i, err);
        ck_assert_ptr_null(page.last);
    }
    strbuf_free(&out);
}
END_TEST

static int s3(const char *body, const char *prefix, const char *after, const char *token,
              strbuf *out, struct objstore_page *page, char *err)
{
    strbuf_reset(out);
    return objstore_parse_s3_page(body, strlen(body), "c", prefix, after, token, collect, out,
                                  page, err, 256);
}

#define S3HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" \
               "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
#define S3ITEM(k) "<Contents><Key>" k "</Key><LastModified>1970-01-01T00:00:10.000Z</LastModified>" \
                  "<ETag>&quot;d41d8cd98f00b204e9800998ecf8427e&quot;</ETag><Size>3</Size></Contents>"

START_TEST(s3_page_strips_the_container_and_unquotes_etags)
{
    strbuf out = STRBUF_INIT;
    struct objstore_page page;
    char err[256];
    const char *body = S3HEAD "<IsTruncated>true</IsTruncated><NextContinuationToken>t2"
                              "</NextContinuationToken>" S3ITEM("c/p/a") S3ITEM("c/p/b")
                              "</ListBucketResult>";
    ck_assert_int_eq(s3(body, "p/", NULL, "t1", &out, &page, err), OBJ_OK);
    ck_assert_str_eq(strbuf_cstr(&out), "p/a,d41d8cd98f00b204e9800998ecf8427e,3,10|"
                                        "p/b,d41d8cd98f00b204e9800998ecf8427e,3,10|");
    ck_assert_int_eq(page.truncated, 1);
    ck_assert_str_eq(page.next, "t2");
    ck_assert_str_eq(page.last, "p/b");
    objstore_page_free(&page);
    strbuf_free(&out);
}
END_TEST

START_TEST(s3_page_refuses_lies)
{
    strbuf out = STRBUF_INIT;
    struct objstore_page page;
    char err[256];
    const struct {
        const char *body, *prefix, *token, *why;
    } cases[] = {
        /* two items and the token we sent: a loop */
        {S3HEAD "<IsTruncated>true</IsTruncated><NextContinuationToken>t1</NextContinuationToken>"
                S3ITEM("c/a") S3ITEM("c/b") "</ListBucketResult>",
         NULL, "t1", "does not advance"},
        {S3HEAD "<IsTruncated>true</IsTruncated>" S3ITEM("c/a") "</ListBucketResult>", NULL, NULL,
         "without a usable"},
        {S3HEAD "<IsTruncated>false</IsTruncated>" S3ITEM("d/a") "</ListBucketResult>", NULL, NULL,
         "outside the container"},
        {S3HEAD "<IsTruncated>false</IsTruncated>" S3ITEM("c/q/a") "</ListBucketResult>", "p/",
         NULL, "outside the prefix"},
        {S3HEAD "<IsTruncated>false</IsTruncated>" S3ITEM("c/a"), NULL, NULL, "not well-formed"},
        {"<ListAllMyBucketsResult/>", NULL, NULL, "not a ListBucketResult"},
        {S3HEAD "<IsTruncated>false</IsTruncated><Contents><Key>c/a</Key></Contents>"
                "</ListBucketResult>",
         NULL, NULL, "without Key"},
        {S3HEAD "<IsTruncated>maybe</IsTruncated></ListBucketResult>", NULL, NULL, "IsTruncated"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        err[0] = '\0';
        ck_assert_int_eq(s3(cases[i].body, cases[i].prefix, NULL, cases[i].token, &out, &page, err),
                         OBJ_REFUSED);
        ck_assert_msg(strstr(err, cases[i].why), "case %zu: %s", i, err);
    }
    strbuf_free(&out);
}
END_TEST

/* A hostile name is a writer's choice, not a lie: skipped and counted, the
 * good items around it given, and it still moves the marker on. */
START_TEST(pages_skip_bad_names_and_count_them)
{
    strbuf out = STRBUF_INIT;
    struct objstore_page page;
    char err[256];
    ck_assert_int_eq(swift("[" ITEM("../../etc/passwd") "," ITEM("a") "," ITEM("a//b") "]", NULL,
                           NULL, &out, &page, err),
                     OBJ_OK);
    ck_assert_str_eq(strbuf_cstr(&out), "a,d41d8cd98f00b204e9800998ecf8427e,3,10|");
    ck_assert_uint_eq(page.count, 1);
    ck_assert_uint_eq(page.skipped, 2);
    ck_assert_str_eq(page.last, "a//b");
    objstore_page_free(&page);
    const char *body = S3HEAD "<IsTruncated>false</IsTruncated>" S3ITEM("c/../../etc/passwd")
                              S3ITEM("c/a") "</ListBucketResult>";
    ck_assert_int_eq(s3(body, NULL, NULL, NULL, &out, &page, err), OBJ_OK);
    ck_assert_str_eq(strbuf_cstr(&out), "a,d41d8cd98f00b204e9800998ecf8427e,3,10|");
    ck_assert_uint_eq(page.skipped, 1);
    ck_assert_str_eq(page.last, "a");
    objstore_page_free(&page);
    strbuf_free(&out);
}
END_TEST

START_TEST(s3_page_with_an_external_entity_is_refused_unread)
{
    strbuf out = STRBUF_INIT;
    struct objstore_page page;
    char err[256];
    char *dir = tmpdir_make();
    char *secret = path_join(dir, "secret");
    file_write(secret, "TOPSECRET", 9);
    strbuf body = STRBUF_INIT;
    strbuf_appendf(&body,
                   "<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY x SYSTEM \"file://%s\">]>"
                   "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>c/&x;</Key>"
                   "<LastModified>x</LastModified><ETag>e</ETag><Size>1</Size></Contents>"
                   "</ListBucketResult>",
                   secret);
    ck_assert_int_eq(objstore_parse_s3_page(strbuf_cstr(&body), body.len, "c", NULL, NULL, NULL,
                                            collect, &out, &page, err, sizeof(err)),
                     OBJ_REFUSED);
    ck_assert_ptr_nonnull(strstr(err, "DOCTYPE"));
    ck_assert_ptr_null(strstr(strbuf_cstr(&out), "TOPSECRET"));
    ck_assert_ptr_null(strstr(err, "TOPSECRET"));
    strbuf_free(&body);
    strbuf_free(&out);
    free(secret);
    tmpdir_remove(dir);
}
END_TEST

Suite *objstore_suite(void)
{
    Suite *s = suite_create("objstore");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, name_ok_accepts_plain_and_unicode_names);
    tcase_add_test(tc, name_ok_refuses_hostile_names);
    tcase_add_test(tc, name_ok_bounds_the_length);
    tcase_add_test(tc, config_file_is_read_when_private);
    tcase_add_test(tc, config_file_readable_by_others_is_refused);
    tcase_add_test(tc, config_file_as_a_systemd_credential);
    tcase_add_test(tc, config_file_symlink_and_unknown_key_are_refused);
    tcase_add_test(tc, config_check_wants_complete_settings);
    tcase_add_test(tc, open_refuses_incomplete_config_and_bad_names_send_nothing);
    tcase_add_test(tc, parse_time_reads_both_stores_forms);
    tcase_add_test(tc, swift_page_gives_items_and_the_last_name);
    tcase_add_test(tc, swift_page_refuses_lies);
    tcase_add_test(tc, s3_page_strips_the_container_and_unquotes_etags);
    tcase_add_test(tc, s3_page_refuses_lies);
    tcase_add_test(tc, s3_page_with_an_external_entity_is_refused_unread);
    tcase_add_test(tc, pages_skip_bad_names_and_count_them);
    suite_add_tcase(s, tc);
    return s;
}
