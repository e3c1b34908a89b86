/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of the shared helpers: svc_buf, svc_set_error, config parsing. */
#include "check.h"
#include "e3svc/svc.h"

int main(void) {
    svc_buf b = {0};
    for (int i = 0; i < 1000; i++) CHECK_EQ_INT(svc_buf_append(&b, "abc", 3), SVC_OK);
    CHECK_EQ_INT(b.len, 3000);
    CHECK_MEM(b.data + 2997, "abc", 3);
    svc_buf_reset(&b);
    CHECK_EQ_INT(b.len, 0);
    CHECK(b.cap >= 3000);
    svc_buf_free(&b);
    CHECK(b.data == NULL && b.cap == 0);

    char err[SVC_ERRBUF_LEN];
    CHECK_EQ_INT(svc_set_error(err, "bad %d", 7), SVC_ERR);
    CHECK(strcmp(err, "bad 7") == 0);

    const char *cfg = "alpha=0.25; width = 1024;name=abc;hex=0x10;bad=12x;empty=";
    CHECK(svc_config_double(cfg, "alpha", 1.0) == 0.25);
    CHECK_EQ_INT(svc_config_long(cfg, "width", 0), 1024);
    CHECK_EQ_INT(svc_config_long(cfg, "hex", 0), 16);
    CHECK_EQ_INT(svc_config_long(cfg, "bad", 5), 5);
    CHECK_EQ_INT(svc_config_long(cfg, "missing", -3), -3);
    CHECK_EQ_INT(svc_config_long(cfg, "empty", 9), 9);
    CHECK_EQ_INT(svc_config_long(NULL, "width", 2), 2);
    char out[8];
    CHECK_EQ_INT(svc_config_str(cfg, "name", out, sizeof(out)), 1);
    CHECK(strcmp(out, "abc") == 0);
    CHECK_EQ_INT(svc_config_str(cfg, "nam", out, sizeof(out)), 0);
    CHECK(out[0] == '\0');
    CHECK_EQ_INT(svc_config_str("k=0123456789", "k", out, sizeof(out)), 1);
    CHECK(strcmp(out, "0123456") == 0);
    return 0;
}
