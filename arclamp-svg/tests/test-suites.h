/* Suites of the arclamp-svg unit test runner (build/tests/test-arclamp-svg). */
#ifndef ARCLAMP_SVG_TEST_SUITES_H
#define ARCLAMP_SVG_TEST_SUITES_H

#include <check.h>

#include "testutil.h"

Suite *xmlesc_suite(void);     /* test-xmlesc.c */
Suite *flame_suite(void);      /* test-flame.c */
Suite *input_suite(void);      /* test-input.c */
Suite *palette_suite(void);    /* test-palette.c */
Suite *svg_suite(void);        /* test-svg.c: layout, label fitting, golden files */
Suite *gen_config_suite(void); /* test-gen-config.c */
Suite *generate_suite(void);   /* test-generate.c */
Suite *compress_suite(void);   /* test-compress.c */
Suite *top_suite(void);        /* test-top.c */
Suite *runstate_suite(void);   /* test-runstate.c */
Suite *diffmerge_suite(void);  /* test-diffmerge.c */
Suite *logpick_suite(void);    /* test-logpick.c: diff's RANGE */

struct flame;
/* A finished flame of NULL-terminated collapsed lines (test-flame.c). */
struct flame *flame_of(const char *const *lines);

#endif
