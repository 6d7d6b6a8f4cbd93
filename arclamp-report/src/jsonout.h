/* jsonout: the numbers and metric objects of arclamp-report's JSON (the
 * --json output and the html page's data), written as PHP wrote them. */
#ifndef ARCLAMP_REPORT_JSONOUT_H
#define ARCLAMP_REPORT_JSONOUT_H

#include <json-c/json.h>

#include "run.h"

/* A whole number as an integer, any other as a double. */
json_object *json_number(double v);
/* {"ct": ..., "wt": ..., "excl_wt": ...}: the metrics in `present`, and with
 * `excl` the exclusive value of each (but ct) after it. */
json_object *json_metrics(const double *v, unsigned present, const double *excl);

#endif
