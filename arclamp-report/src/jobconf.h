/* jobconf: the configuration file of arclamp-report's timer jobs
 * (`generate`, `tiers`, --config FILE; /etc/arclamp/arclamp-report.yaml when
 * it exists and no --config is given). Everything else about the jobs is
 * given on the command line; the file holds only what is too much for
 * flags: the object store (common/src/storeconf.h, the same `object_store:`
 * keys as arclamp-svg's).
 *
 *   object_store:
 *     type: swift
 *     auth_url: http://swift.example.org/auth/v1.0
 *     credentials_file: /etc/arclamp/object-store.env
 *     host: eqiad
 *
 * Unknown keys, wrong types and values out of range are refused with
 * "FILE:LINE: key: why" (the caller exits 78). */
#ifndef ARCLAMP_REPORT_JOBCONF_H
#define ARCLAMP_REPORT_JOBCONF_H

#include <stddef.h>

#include "storeconf.h"

#define JOBCONF_DEFAULT_PATH "/etc/arclamp/arclamp-report.yaml"
/* The exit status of a configuration that is refused (EX_CONFIG, as the
 * other programs). */
#define JOBCONF_EXIT_CONFIG 78

struct job_config {
    struct store_config store;     /* type none when the file has no object_store */
};

/* Reads `path` (NULL: JOBCONF_DEFAULT_PATH if it exists, else the
 * defaults), binds it and completes the store's settings
 * (store_config_finish). 0, or -1 with why in err ("FILE:LINE: key: why");
 * on -1 nothing is left to free. */
int job_config_load(const char *path, struct job_config *cfg, char *err, size_t errlen);
/* Binds the YAML text (named `name` in messages); for the unit tests. */
int job_config_load_string(const char *name, const char *text, struct job_config *cfg,
                           char *err, size_t errlen);
void job_config_free(struct job_config *cfg);

/* 1 when the run publishes to the store / draws from it. */
int job_config_publishes(const struct job_config *cfg);
int job_config_from_store(const struct job_config *cfg);

#endif
