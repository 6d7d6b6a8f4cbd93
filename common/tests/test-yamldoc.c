/* Tests of yamldoc: the line-numbered YAML tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-suites.h"
#include "yamldoc.h"

static int load(const char *text, struct ydoc *doc, char *err, size_t errlen)
{
    err[0] = '\0';
    return ydoc_load_string("t.yaml", text, strlen(text), doc, err, errlen);
}

START_TEST(loads_scalars_maps_and_sequences_with_line_numbers)
{
    static const char text[] = "# comment\n"         /* 1 */
                               "name: arclamp\n"     /* 2 */
                               "redis:\n"            /* 3 */
                               "  host: 127.0.0.1\n" /* 4 */
                               "  port: 6379\n"      /* 5 */
                               "logs:\n"             /* 6 */
                               "  - period: hourly\n" /* 7 */
                               "    retain: 336\n"   /* 8 */
                               "  - daily\n"         /* 9 */
                               "flow: [a, 'b']\n";   /* 10 */
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load(text, &doc, err, sizeof err), 0);
    const struct ynode *root = doc.root;
    ck_assert_ptr_nonnull(root);
    ck_assert_int_eq(root->type, YNODE_MAP);
    ck_assert_int_eq(root->line, 2);
    ck_assert_uint_eq(root->nitems, 8); /* 4 keys and 4 values */
    ck_assert_str_eq(doc.path, "t.yaml");

    const struct ynode *name = ynode_get(root, "name");
    ck_assert_int_eq(name->type, YNODE_SCALAR);
    ck_assert_str_eq(name->value, "arclamp");
    ck_assert_int_eq(name->line, 2);
    ck_assert_int_eq(name->plain, 1);

    const struct ynode *redis = ynode_get(root, "redis");
    ck_assert_int_eq(redis->type, YNODE_MAP);
    ck_assert_int_eq(redis->line, 4);
    ck_assert_str_eq(ynode_get(redis, "host")->value, "127.0.0.1");
    ck_assert_int_eq(ynode_get(redis, "port")->line, 5);
    ck_assert_str_eq(ynode_get(redis, "port")->value, "6379");

    const struct ynode *logs = ynode_get(root, "logs");
    ck_assert_int_eq(logs->type, YNODE_SEQ);
    ck_assert_int_eq(logs->line, 7);
    ck_assert_uint_eq(logs->nitems, 2);
    ck_assert_int_eq(logs->items[0]->type, YNODE_MAP);
    ck_assert_int_eq(logs->items[0]->line, 7);
    ck_assert_int_eq(ynode_get(logs->items[0], "retain")->line, 8);
    ck_assert_str_eq(ynode_get(logs->items[0], "retain")->value, "336");
    ck_assert_int_eq(logs->items[1]->type, YNODE_SCALAR);
    ck_assert_str_eq(logs->items[1]->value, "daily");
    ck_assert_int_eq(logs->items[1]->line, 9);

    const struct ynode *flow = ynode_get(root, "flow");
    ck_assert_int_eq(flow->type, YNODE_SEQ);
    ck_assert_int_eq(flow->line, 10);
    ck_assert_uint_eq(flow->nitems, 2);
    ck_assert_int_eq(flow->items[0]->plain, 1);
    ck_assert_str_eq(flow->items[1]->value, "b");
    ck_assert_int_eq(flow->items[1]->plain, 0);
    ydoc_free(&doc);
    ck_assert_ptr_null(doc.root);
    ck_assert_ptr_null(doc.path);
}
END_TEST

START_TEST(get_returns_null_for_missing_key_or_non_map)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("a: 1\nb: [x]\n", &doc, err, sizeof err), 0);
    ck_assert_ptr_null(ynode_get(doc.root, "c"));
    ck_assert_ptr_null(ynode_get(doc.root, "A"));
    ck_assert_ptr_null(ynode_get(doc.root, "1")); /* values are not keys */
    ck_assert_ptr_null(ynode_get(ynode_get(doc.root, "b"), "x"));
    ck_assert_ptr_null(ynode_get(ynode_get(doc.root, "a"), "a"));
    ck_assert_ptr_null(ynode_get(NULL, "a"));
    ydoc_free(&doc);
}
END_TEST

START_TEST(is_null_recognises_yaml_null_only_when_plain)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("a:\nb: ~\nc: null\nd: Null\ne: NULL\nf: 'null'\ng: \"~\"\n"
                          "h: ''\ni: nil\nj: 0\nk: {}\nl: []\n",
                          &doc, err, sizeof err),
                     0);
    const struct ynode *r = doc.root;
    ck_assert(ynode_is_null(ynode_get(r, "a")));
    ck_assert(ynode_is_null(ynode_get(r, "b")));
    ck_assert(ynode_is_null(ynode_get(r, "c")));
    ck_assert(ynode_is_null(ynode_get(r, "d")));
    ck_assert(ynode_is_null(ynode_get(r, "e")));
    ck_assert(!ynode_is_null(ynode_get(r, "f")));
    ck_assert(!ynode_is_null(ynode_get(r, "g")));
    ck_assert(!ynode_is_null(ynode_get(r, "h")));
    ck_assert(!ynode_is_null(ynode_get(r, "i")));
    ck_assert(!ynode_is_null(ynode_get(r, "j")));
    ck_assert(!ynode_is_null(ynode_get(r, "k")));
    ck_assert(!ynode_is_null(ynode_get(r, "l")));
    ck_assert(!ynode_is_null(NULL));
    ydoc_free(&doc);
}
END_TEST

START_TEST(empty_document_has_no_root)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("", &doc, err, sizeof err), 0);
    ck_assert_ptr_null(doc.root);
    ydoc_free(&doc);
    ck_assert_int_eq(load("# only a comment\n\n", &doc, err, sizeof err), 0);
    ck_assert_ptr_null(doc.root);
    ydoc_free(&doc);
}
END_TEST

START_TEST(explicit_empty_document_is_a_null_scalar)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("---\n", &doc, err, sizeof err), 0);
    ck_assert_ptr_nonnull(doc.root);
    ck_assert(ynode_is_null(doc.root));
    ydoc_free(&doc);
}
END_TEST

START_TEST(refuses_duplicate_key_with_its_line)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("a: 1\nb: 2\na: 3\n", &doc, err, sizeof err), -1);
    ck_assert_str_eq(err, "t.yaml:3: a: key given twice");
    ck_assert_ptr_null(doc.root);
}
END_TEST

START_TEST(refuses_duplicate_key_in_nested_map)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("redis:\n  port: 1\n  host: x\n  port: 2\n", &doc, err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "t.yaml:4: port: key given twice");
}
END_TEST

START_TEST(refuses_anchor_on_scalar)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("a: 1\nb: &x 2\nc: *x\n", &doc, err, sizeof err), -1);
    ck_assert_str_eq(err, "t.yaml:2: anchors and aliases are not supported");
}
END_TEST

START_TEST(refuses_anchor_on_collections)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("a: &m {x: 1}\n", &doc, err, sizeof err), -1);
    ck_assert_str_eq(err, "t.yaml:1: anchors and aliases are not supported");
    ck_assert_int_eq(load("a:\n  - 1\nb: &s [1]\n", &doc, err, sizeof err), -1);
    ck_assert_str_eq(err, "t.yaml:3: anchors and aliases are not supported");
}
END_TEST

START_TEST(refuses_alias)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("a: 1\nb: *undefined\n", &doc, err, sizeof err), -1);
    ck_assert_str_eq(err, "t.yaml:2: anchors and aliases are not supported");
}
END_TEST

START_TEST(refuses_second_document)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("a: 1\n---\nb: 2\n", &doc, err, sizeof err), -1);
    ck_assert_str_eq(err, "t.yaml:2: only one YAML document is allowed");
    ck_assert_ptr_null(doc.root);
}
END_TEST

START_TEST(accepts_document_end_marker)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("---\na: 1\n...\n", &doc, err, sizeof err), 0);
    ck_assert_str_eq(ynode_get(doc.root, "a")->value, "1");
    ydoc_free(&doc);
}
END_TEST

START_TEST(invalid_yaml_error_has_line_number)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("a: 1\nb: [1, 2\nc: 3\n", &doc, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "t.yaml:", 7) == 0, "%s", err);
    ck_assert_ptr_nonnull(strstr(err, ": invalid YAML: "));
    int line = atoi(err + 7);
    ck_assert_int_ge(line, 2);
    ck_assert_int_le(line, 4);

    ck_assert_int_eq(load("a: 1\nb: c: d\n", &doc, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "t.yaml:2: invalid YAML: ", 24) == 0, "%s", err);

    ck_assert_int_eq(load("a: 1\n  b: 2\n", &doc, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "t.yaml:2: invalid YAML: ", 24) == 0, "%s", err);
}
END_TEST

START_TEST(refuses_non_scalar_mapping_key)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("a: 1\n? [x, y]\n: 2\n", &doc, err, sizeof err), -1);
    ck_assert_str_eq(err, "t.yaml:2: mapping keys must be plain strings");
}
END_TEST

START_TEST(refuses_nul_byte_in_value)
{
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load("a: 1\nb: \"x\\0y\"\n", &doc, err, sizeof err), -1);
    ck_assert_str_eq(err, "t.yaml:2: NUL byte in a value");
}
END_TEST

START_TEST(refuses_deep_nesting)
{
    char text[512];
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        text[n++] = '[';
    for (int i = 0; i < 100; i++)
        text[n++] = ']';
    text[n] = '\0';
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(load(text, &doc, err, sizeof err), -1);
    ck_assert_str_eq(err, "t.yaml:1: nesting too deep");

    n = 0;
    for (int i = 0; i < 10; i++)
        text[n++] = '[';
    for (int i = 0; i < 10; i++)
        text[n++] = ']';
    text[n] = '\0';
    ck_assert_int_eq(load(text, &doc, err, sizeof err), 0);
    ck_assert_int_eq(doc.root->type, YNODE_SEQ);
    ydoc_free(&doc);
}
END_TEST

START_TEST(loads_file_and_uses_its_path_in_messages)
{
    char dir[] = "/tmp/arclamp-test-yaml-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/c.yaml", dir);

    FILE *f = fopen(path, "w");
    fputs("a: 1\nb:\n  c: two\n", f);
    fclose(f);
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(ydoc_load_file(path, &doc, err, sizeof err), 0);
    ck_assert_str_eq(doc.path, path);
    ck_assert_str_eq(ynode_get(ynode_get(doc.root, "b"), "c")->value, "two");
    ck_assert_int_eq(ynode_get(ynode_get(doc.root, "b"), "c")->line, 3);
    ydoc_free(&doc);

    f = fopen(path, "w");
    fputs("a: 1\na: 2\n", f);
    fclose(f);
    ck_assert_int_eq(ydoc_load_file(path, &doc, err, sizeof err), -1);
    char expect[200];
    snprintf(expect, sizeof expect, "%s:2: a: key given twice", path);
    ck_assert_str_eq(err, expect);

    unlink(path);
    ck_assert_int_eq(ydoc_load_file(path, &doc, err, sizeof err), -1);
    snprintf(expect, sizeof expect, "%s: No such file or directory", path);
    ck_assert_str_eq(err, expect);
    rmdir(dir);
}
END_TEST

START_TEST(loads_empty_file)
{
    char dir[] = "/tmp/arclamp-test-yaml-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/empty.yaml", dir);
    FILE *f = fopen(path, "w");
    fclose(f);
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(ydoc_load_file(path, &doc, err, sizeof err), 0);
    ck_assert_ptr_null(doc.root);
    ydoc_free(&doc);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(refuses_file_larger_than_4_mib)
{
    char dir[] = "/tmp/arclamp-test-yaml-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/big.yaml", dir);
    FILE *f = fopen(path, "w");
    fputs("a: ", f);
    for (int i = 0; i < 4 * 1024 + 1; i++) {
        char kb[1024];
        memset(kb, 'x', sizeof kb);
        fwrite(kb, 1, sizeof kb, f);
    }
    fputs("\n", f);
    fclose(f);
    struct ydoc doc;
    char err[256];
    ck_assert_int_eq(ydoc_load_file(path, &doc, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "larger than 4194304 bytes"));
    unlink(path);
    rmdir(dir);
}
END_TEST

Suite *yamldoc_suite(void)
{
    Suite *s = suite_create("yamldoc");
    TCase *tc = tcase_create("tree");
    tcase_add_test(tc, loads_scalars_maps_and_sequences_with_line_numbers);
    tcase_add_test(tc, get_returns_null_for_missing_key_or_non_map);
    tcase_add_test(tc, is_null_recognises_yaml_null_only_when_plain);
    tcase_add_test(tc, empty_document_has_no_root);
    tcase_add_test(tc, explicit_empty_document_is_a_null_scalar);
    tcase_add_test(tc, accepts_document_end_marker);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, refuses_duplicate_key_with_its_line);
    tcase_add_test(tc, refuses_duplicate_key_in_nested_map);
    tcase_add_test(tc, refuses_anchor_on_scalar);
    tcase_add_test(tc, refuses_anchor_on_collections);
    tcase_add_test(tc, refuses_alias);
    tcase_add_test(tc, refuses_second_document);
    tcase_add_test(tc, invalid_yaml_error_has_line_number);
    tcase_add_test(tc, refuses_non_scalar_mapping_key);
    tcase_add_test(tc, refuses_nul_byte_in_value);
    tcase_add_test(tc, refuses_deep_nesting);
    suite_add_tcase(s, tc);

    tc = tcase_create("file");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, loads_file_and_uses_its_path_in_messages);
    tcase_add_test(tc, loads_empty_file);
    tcase_add_test(tc, refuses_file_larger_than_4_mib);
    suite_add_tcase(s, tc);
    return s;
}
