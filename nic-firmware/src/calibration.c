/* SPDX-License-Identifier: Apache-2.0 */
/* calibration: see calibration.h. Figures copied from the paper's Table 1 (E3, USENIX ATC 2019);
 * backend/e3/catalog/microservices.json holds the same figures, and a backend test checks that
 * `e3-nic --print-calibration` agrees with it. */
#include "calibration.h"

#include <string.h>

static const nic_calibration nic_table[] = {
    /* service, host DPDK rps, cores, SmartNIC rps, cores, SmartNIC active W */
    {"ipsec", 911900, 12, 1851100, 12, 23.4},
    {"bm25", 99500, 12, 394100, 12, 19.2},
    {"nids", 1841100, 12, 1988800, 12, 23.4},
    {"recommend", 4100, 12, 12800, 12, 18.9},
    {"natv4", 1917500, 4, 2053100, 12, 23.6},
    {"count", 1960000, 4, 2016800, 12, 21.0},
    {"ema", 2009200, 4, 2052000, 12, 22.0},
    {"kvs", 2005000, 2, 2033400, 12, 21.6},
    {"flow_monitor", 2014400, 4, 2032600, 12, 24.3},
    {"ddos", 1844800, 12, 1952500, 12, 24.3},
    {"knn", 42400, 12, 29900, 12, 20.0},
    {"spike", 104300, 12, 73800, 12, 23.5},
    {"bayes", 13700, 12, 1600, 12, 19.5},
    {"api_gateway", 1584300, 12, 124500, 12, 24.7},
    {"top_ranker", 771900, 12, 14800, 12, 20.3},
    {"sql", 528000, 12, 39500, 12, 18.8},
};

const nic_calibration *nic_calibration_table(size_t *n) {
    *n = sizeof(nic_table) / sizeof(nic_table[0]);
    return nic_table;
}

const nic_calibration *nic_calibration_find(const char *service) {
    for (size_t i = 0; service && i < sizeof(nic_table) / sizeof(nic_table[0]); i++)
        if (strcmp(nic_table[i].service, service) == 0) return &nic_table[i];
    return NULL;
}

double nic_pace_factor(const char *service) {
    const nic_calibration *c = nic_calibration_find(service);
    if (!c || (c->host_rps >= NIC_LINE_RATE_RPS && c->nic_rps >= NIC_LINE_RATE_RPS)) return 1.0;
    double factor = (c->nic_cores / c->nic_rps) / (c->host_cores / c->host_rps);
    return factor > 1.0 ? factor : 1.0;
}

double nic_active_watts(const char *service) {
    const nic_calibration *c = nic_calibration_find(service);
    return c ? c->nic_active_w : 0.0;
}

double nic_max_active_watts(void) {
    double max = 0;
    for (size_t i = 0; i < sizeof(nic_table) / sizeof(nic_table[0]); i++)
        if (nic_table[i].nic_active_w > max) max = nic_table[i].nic_active_w;
    return max;
}

void nic_calibration_print(FILE *f) {
    for (size_t i = 0; i < sizeof(nic_table) / sizeof(nic_table[0]); i++) {
        const nic_calibration *c = &nic_table[i];
        fprintf(f,
                "{\"service\": \"%s\", \"host_rps\": %.0f, \"host_cores\": %.0f, \"nic_rps\": %.0f, "
                "\"nic_cores\": %.0f, \"nic_active_watts\": %.1f, \"pace_factor\": %.3f}\n",
                c->service, c->host_rps, c->host_cores, c->nic_rps, c->nic_cores, c->nic_active_w,
                nic_pace_factor(c->service));
    }
}
