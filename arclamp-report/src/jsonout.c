/* jsonout: numbers and metric objects of arclamp-report's JSON (see jsonout.h). */
#include "jsonout.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

json_object *json_number(double v)
{
    if (v == floor(v) && fabs(v) < 9e15)
        return json_object_new_int64((int64_t)v);
    return json_object_new_double(v);
}

json_object *json_metrics(const double *v, unsigned present, const double *excl)
{
    json_object *o = json_object_new_object();
    for (int m = 0; m < M_COUNT; m++) {
        if (!(present & (1u << m)))
            continue;
        json_object_object_add(o, metric_names[m], json_number(v[m]));
        if (excl && m != M_CT) {
            char k[32];
            snprintf(k, sizeof k, "excl_%s", metric_names[m]);
            json_object_object_add(o, k, json_number(excl[m]));
        }
    }
    return o;
}
