/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test helpers for e3-agent's request paths: catch what a chan_reply_fn receives, wait for it
 * and check it; find a free UDP port; send a request or a replicate frame over UDP and check the
 * reply. Waiting polls an atomic flag (no locks), as the callback runs on another thread.
 */
#ifndef E3AGENT_TESTS_CHAN_CHECK_H
#define E3AGENT_TESTS_CHAN_CHECK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "chan.h"
#include "check.h"

/* One reply, as on_reply stored it. */
typedef struct reply {
    atomic_int done; /* 1 once the callback ran */
    int status;      /* CHAN_OK / CHAN_ERR */
    char text[256];  /* response, truncated to fit, NUL-terminated */
} reply;

/* chan_reply_fn: store status and text in the `reply` passed as ctx, then mark it done. */
static inline void on_reply(void *ctx, int status, const uint8_t *resp, size_t len) {
    reply *r = ctx;
    r->status = status;
    if (len >= sizeof(r->text)) len = sizeof(r->text) - 1;
    memcpy(r->text, resp, len);
    r->text[len] = '\0';
    atomic_store(&r->done, 1);
}

/* Wait until on_reply has filled `r` (polled every 100 us, ~5 s at most); fail the test if not. */
static inline void wait_done(reply *r) {
    struct timespec ts = {0, 100000};
    for (int i = 0; i < 50000 && !atomic_load(&r->done); i++) nanosleep(&ts, NULL);
    CHECK(atomic_load(&r->done));
}

/* Wait for `r`, then check its status and text (`want` NULL: any text). `req` (`req_len` bytes,
 * 0 for binary frames) only names the request in the failure message. */
static inline void check_reply(reply *r, const char *req, int req_len, int want_status, const char *want) {
    wait_done(r);
    if (r->status != want_status || (want && strcmp(r->text, want) != 0))
        fprintf(stderr, "\"%.*s\" -> %d \"%s\" (want %d \"%s\")\n", req_len, req, r->status, r->text, want_status,
                want ? want : "*");
    CHECK_EQ_INT(r->status, want_status);
    CHECK(!want || strcmp(r->text, want) == 0);
}

/* A UDP port nobody uses right now on 127.0.0.1 (bind to 0, note, release). */
static inline uint16_t free_port(void) {
    char err[CHAN_ERRBUF_LEN];
    chan_udp_node *n = chan_udp_node_new("127.0.0.1", 0, NULL, NULL, err);
    CHECK(n);
    uint16_t p = chan_udp_node_port(n);
    chan_udp_node_free(n);
    return p;
}

/* Send a request (replicate = 0) or a replicate frame to 127.0.0.1:port (instance id 0) from
 * `client` and check the reply as check_reply does. */
static inline void udp_send_check(chan_udp_node *client, uint16_t port, int replicate, const uint8_t *data,
                                  size_t len, int want_status, const char *want) {
    char err[CHAN_ERRBUF_LEN];
    chan *c = chan_udp_open(client, "127.0.0.1", port, err);
    CHECK(c);
    reply r = {0};
    int rc = replicate ? chan_udp_replicate(c, 0, data, len, on_reply, &r, err)
                       : chan_send(c, 0, data, len, on_reply, &r, err);
    CHECK_EQ_INT(rc, CHAN_OK);
    chan_close(c);
    check_reply(&r, (const char *)data, replicate ? 0 : (int)len, want_status, want);
}

#endif
