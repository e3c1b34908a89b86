/* SPDX-License-Identifier: Apache-2.0 */
/* The registry of service types, in catalogue order (paper Table 2). */
#include <string.h>

#include "e3svc/svc.h"

extern const svc_type svc_ipsec, svc_bm25, svc_natv4, svc_nids, svc_count, svc_ema, svc_kvs, svc_flow_monitor,
    svc_ddos, svc_recommend, svc_knn, svc_spike, svc_bayes, svc_api_gateway, svc_top_ranker, svc_sql;

static const svc_type *const registry[] = {
    &svc_ipsec, &svc_bm25, &svc_natv4, &svc_nids, &svc_count, &svc_ema, &svc_kvs, &svc_flow_monitor,
    &svc_ddos, &svc_recommend, &svc_knn, &svc_spike, &svc_bayes, &svc_api_gateway, &svc_top_ranker, &svc_sql,
};

const svc_type *const *svc_types(size_t *count) {
    *count = sizeof(registry) / sizeof(registry[0]);
    return registry;
}

const svc_type *svc_find(const char *name) {
    for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}
