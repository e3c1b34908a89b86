/* SPDX-License-Identifier: Apache-2.0 */
/* The registry holds the paper's 16 services (Table 2), with Table 2's stateful flags. */
#include <string.h>

#include "check.h"
#include "e3svc/svc.h"

static const struct {
    const char *name;
    int stateful;
} table2[] = {
    {"ipsec", 0}, {"bm25", 0},   {"natv4", 0},        {"nids", 0},  {"count", 1},       {"ema", 1},
    {"kvs", 1},   {"flow_monitor", 1}, {"ddos", 1},   {"recommend", 1}, {"knn", 0},     {"spike", 1},
    {"bayes", 0}, {"api_gateway", 1},  {"top_ranker", 1}, {"sql", 1},
};

int main(void) {
    size_t n = 0;
    const svc_type *const *types = svc_types(&n);
    CHECK_EQ_INT((int)n, 16);
    for (size_t i = 0; i < n; i++) {
        CHECK(strcmp(types[i]->name, table2[i].name) == 0);
        CHECK_EQ_INT(types[i]->stateful, table2[i].stateful);
        CHECK(svc_find(table2[i].name) == types[i]);
        CHECK(types[i]->create && types[i]->handle && types[i]->export_state && types[i]->import_state &&
              types[i]->destroy);
    }
    CHECK(svc_find("blockchain") == NULL);
    return 0;
}
