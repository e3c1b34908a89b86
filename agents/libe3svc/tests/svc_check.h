/* SPDX-License-Identifier: Apache-2.0 */
/* Test helpers for services: create, call with a text request, migrate state to a fresh instance. */
#ifndef E3SVC_TESTS_SVC_CHECK_H
#define E3SVC_TESTS_SVC_CHECK_H

#include "check.h"
#include "e3svc/svc.h"

/* Create an instance of `t` from `config`, failing the test on error. */
static inline svc_instance *svc_check_create(const svc_type *t, const char *config, const svc_env *env) {
    svc_instance *inst = NULL;
    char err[SVC_ERRBUF_LEN] = "";
    if (t->create(config, env, &inst, err) != SVC_OK) {
        fprintf(stderr, "create %s failed: %s\n", t->name, err);
        exit(1);
    }
    return inst;
}

/* Send a text request; returns the NUL-terminated response (static buffer, overwritten by the
 * next call), or NULL when handle returned SVC_ERR. */
static inline const char *svc_check_call(const svc_type *t, svc_instance *inst, const char *req) {
    static char out[SVC_MAX_RESPONSE + 1];
    svc_buf resp = {0};
    char err[SVC_ERRBUF_LEN] = "";
    int rc = t->handle(inst, (const uint8_t *)req, strlen(req), &resp, err);
    if (rc == SVC_OK) {
        CHECK(resp.len <= SVC_MAX_RESPONSE);
        if (resp.len) memcpy(out, resp.data, resp.len);
        out[resp.len] = '\0';
    }
    svc_buf_free(&resp);
    return rc == SVC_OK ? out : NULL;
}

/* Export `inst`'s state and import it into a fresh instance made from the same config. */
static inline svc_instance *svc_check_migrate(const svc_type *t, svc_instance *inst, const char *config,
                                              const svc_env *env) {
    svc_buf state = {0};
    char err[SVC_ERRBUF_LEN] = "";
    CHECK_EQ_INT(t->export_state(inst, &state, err), SVC_OK);
    svc_instance *fresh = svc_check_create(t, config, env);
    if (t->import_state(fresh, state.data, state.len, err) != SVC_OK) {
        fprintf(stderr, "import %s failed: %s\n", t->name, err);
        exit(1);
    }
    /* a truncated state is rejected */
    if (state.len > 0) CHECK_EQ_INT(t->import_state(fresh, state.data, state.len - 1, err), SVC_ERR);
    svc_buf_free(&state);
    return fresh;
}

#define CHECK_RESP(t, inst, req, want)                                                              \
    do {                                                                                            \
        const char *got_ = svc_check_call((t), (inst), (req));                                      \
        if (!got_ || strcmp(got_, (want)) != 0) {                                                   \
            fprintf(stderr, "%s:%d: %s -> \"%s\", want \"%s\"\n", __FILE__, __LINE__, (req),         \
                    got_ ? got_ : "(error)", (want));                                               \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

#endif
