/* SPDX-License-Identifier: Apache-2.0 */
/* kvs: commands, COUNT by prefix, errors, export -> import round trip. */
#include "svc_check.h"

extern const svc_type svc_kvs;

int main(void) {
    const svc_type *t = &svc_kvs;
    svc_instance *a = svc_check_create(t, "", NULL);
    CHECK_RESP(t, a, "GET k", "NOT_FOUND");
    CHECK_RESP(t, a, "PUT k hello world", "OK");
    CHECK_RESP(t, a, "GET k", "VALUE hello world");
    CHECK_RESP(t, a, "PUT k2 x", "OK");
    CHECK_RESP(t, a, "PUT gone y", "OK");
    CHECK_RESP(t, a, "DEL gone", "DELETED");
    CHECK_RESP(t, a, "DEL gone", "NOT_FOUND");
    CHECK_RESP(t, a, "COUNT k", "COUNT 2"); /* k and k2 */
    CHECK_RESP(t, a, "COUNT k2", "COUNT 1");
    CHECK_RESP(t, a, "COUNT k20", "COUNT 0");
    CHECK_RESP(t, a, "COUNT *", "COUNT 2");
    CHECK(svc_check_call(t, a, "COUNT") == NULL);
    CHECK(svc_check_call(t, a, "PUT k") == NULL);
    CHECK(svc_check_call(t, a, "FOO k") == NULL);
    CHECK(svc_check_call(t, a, "") == NULL);
    svc_instance *b = svc_check_migrate(t, a, "", NULL);
    CHECK_RESP(t, b, "GET k", "VALUE hello world");
    CHECK_RESP(t, b, "GET k2", "VALUE x");
    CHECK_RESP(t, b, "GET gone", "NOT_FOUND");
    CHECK_RESP(t, b, "COUNT *", "COUNT 2");
    t->destroy(a);
    t->destroy(b);
    return 0;
}
