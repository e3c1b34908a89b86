/* SPDX-License-Identifier: Apache-2.0 */
/*
 * state_xfer: the transfer frame (encode -> decode round trip; every malformed input refused
 * with a reason, every proper prefix asking for more, never a crash), host:port parsing, the
 * primary's sequence numbers moved with rep_primary_sequences / rep_primary_continue, and the
 * importer on its own: a frame for the wrong instance is answered ERR, an importer nobody
 * connects to gives up after its accept timeout, a cancelled one is joined at once; an exporter
 * told before its importer listens connects once it does, and says so when none ever does.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "state_xfer.h"
#include "tcp_check.h"

/* Decode `len` bytes at eof and check an SX_ERR whose reason contains `want`. */
static void refused(const uint8_t *buf, size_t len, const char *want_id, const char *want) {
    sx_frame f;
    char err[SX_ERRBUF_LEN] = "";
    int rc = sx_decode(buf, len, 1, want_id, "kvs", &f, NULL, err);
    if (rc != SX_ERR || !strstr(err, want)) fprintf(stderr, "len %zu: rc %d \"%s\" (want \"%s\")\n", len, rc, err, want);
    CHECK_EQ_INT(rc, SX_ERR);
    CHECK(strstr(err, want));
}

static int ready_calls;
static int count_ready(void *ctx, char *err) {
    (void)ctx, (void)err;
    ready_calls++;
    return SX_OK;
}

/* An importer started late (the ImportState reaching its node after the ExportState). */
typedef struct late_start {
    sx_import_spec *spec;
    sx_importer *im;
    int delay_ms;
} late_start;

static void *start_late(void *arg) {
    late_start *l = arg;
    char err[SX_ERRBUF_LEN];
    struct timespec d = {0, (long)l->delay_ms * 1000000L};
    nanosleep(&d, NULL);
    l->im = sx_importer_start(l->spec, err);
    return NULL;
}

int main(void) {
    char err[SX_ERRBUF_LEN];
    svc_buf b = {0};
    sx_frame f;
    size_t need;

    /* round trip */
    sx_seq seq[2] = {{"backup-1", 41}, {"backup-2", 1ull << 40}};
    const uint8_t state[] = "some state\0with a NUL";
    CHECK_EQ_INT(sx_encode(&b, "inst-x", "kvs", state, sizeof(state), seq, 2, err), SX_OK);
    CHECK_EQ_INT(b.len, 4 + 1 + 1 + 6 + 1 + 3 + 8 + sizeof(state) + 1 + 2 * (1 + 8 + 8));
    CHECK_EQ_INT(sx_decode(b.data, b.len, 1, "inst-x", "kvs", &f, NULL, err), SX_OK);
    CHECK(strcmp(f.instance_id, "inst-x") == 0 && strcmp(f.type, "kvs") == 0);
    CHECK(f.state_len == sizeof(state) && memcmp(f.state, state, sizeof(state)) == 0);
    CHECK(f.n_seq == 2 && strcmp(f.seq[1].backup_id, "backup-2") == 0 && f.seq[1].last_seq == 1ull << 40);
    CHECK(f.seq[0].last_seq == 41 && f.len == b.len);
    CHECK_EQ_INT(sx_decode(b.data, b.len, 0, NULL, NULL, &f, NULL, err), SX_OK); /* unchecked id and type */

    /* every proper prefix: more is needed (and how much, at least one byte more); at eof it is
     * refused as truncated, naming the field it ends in */
    for (size_t len = 1; len < b.len; len++) {
        need = 0;
        CHECK_EQ_INT(sx_decode(b.data, len, 0, "inst-x", "kvs", &f, &need, err), SX_MORE);
        CHECK(need > len && need <= b.len);
        refused(b.data, len, "inst-x", "truncated in the ");
    }
    refused(b.data, 3, "inst-x", "magic");
    refused(b.data, 5, "inst-x", "instance id length");
    refused(b.data, 8, "inst-x", "instance id");
    refused(b.data, 12, "inst-x", "service type length");
    refused(b.data, 14, "inst-x", "service type");
    refused(b.data, 17, "inst-x", "state length");
    refused(b.data, 30, "inst-x", "state");
    size_t at_count = 4 + 1 + 1 + 6 + 1 + 3 + 8 + sizeof(state);
    refused(b.data, at_count, "inst-x", "sequence count");
    refused(b.data, at_count + 1, "inst-x", "backup id length");
    refused(b.data, at_count + 3, "inst-x", "backup id");
    refused(b.data, at_count + 1 + 1 + 8 + 3, "inst-x", "sequence number");

    /* malformed */
    svc_buf bad = {0};
    svc_buf_append(&bad, b.data, b.len);
    bad.data[0] = 'X';
    refused(bad.data, bad.len, "inst-x", "bad magic");
    refused(bad.data, 1, "inst-x", "bad magic"); /* refused from the first byte on */
    bad.data[0] = 'E';
    bad.data[4] = 2;
    refused(bad.data, bad.len, "inst-x", "version 2");
    bad.data[4] = SX_VERSION;
    bad.data[5] = 0;
    refused(bad.data, bad.len, "inst-x", "instance id length 0");
    bad.data[5] = 200;
    refused(bad.data, bad.len, "inst-x", "instance id length 200");
    bad.data[5] = 6;
    bad.data[7] = '\0';
    refused(bad.data, bad.len, "inst-x", "NUL");
    bad.data[7] = 'n';
    refused(b.data, b.len, "inst-y", "of instance inst-x, not inst-y");
    refused(b.data, 12, "inst-y", "of instance inst-x, not inst-y"); /* before the state comes */
    CHECK_EQ_INT(sx_decode(b.data, b.len, 1, "inst-x", "ema", &f, NULL, err), SX_ERR);
    CHECK(strstr(err, "of a kvs, instance inst-x is a ema"));
    for (int i = 0; i < 8; i++) bad.data[16 + i] = 0xff; /* state_len 2^64 - 1 */
    refused(bad.data, 25, "inst-x", "exceeds");
    uint8_t big[8] = {0, 0, 0, 0, 0x40, 0, 0, 1}; /* 1 GiB + 1 */
    memcpy(bad.data + 16, big, 8);
    refused(bad.data, bad.len, "inst-x", "exceeds 1073741824");
    memcpy(bad.data, b.data, b.len);
    bad.data[at_count] = REP_MAX_BACKUPS + 1;
    refused(bad.data, bad.len, "inst-x", "sequence numbers, at most");
    memcpy(bad.data, b.data, b.len);
    bad.data[at_count + 1] = 0;
    refused(bad.data, bad.len, "inst-x", "backup id length 0");
    svc_buf_append(&b, "!", 1);
    refused(b.data, b.len, "inst-x", "1 bytes after the frame");
    svc_buf_free(&bad);

    /* encode refusals; stateless: no state, no numbers */
    svc_buf_reset(&b);
    CHECK_EQ_INT(sx_encode(&b, "", "kvs", NULL, 0, NULL, 0, err), SX_ERR);
    svc_buf_reset(&b);
    CHECK_EQ_INT(sx_encode(&b, "x", "a-type-name-far-too-long-for-the-frame", NULL, 0, NULL, 0, err), SX_ERR);
    svc_buf_reset(&b);
    CHECK_EQ_INT(sx_encode(&b, "x", "kvs", NULL, 0, seq, REP_MAX_BACKUPS + 1, err), SX_ERR);
    svc_buf_reset(&b);
    CHECK_EQ_INT(sx_encode(&b, "x", "bm25", NULL, 0, NULL, 0, err), SX_OK);
    CHECK_EQ_INT(sx_decode(b.data, b.len, 1, "x", "bm25", &f, NULL, err), SX_OK);
    CHECK(f.state_len == 0 && f.n_seq == 0);

    /* host:port */
    char ip[16];
    uint16_t port;
    CHECK(sx_parse_hostport("127.0.0.1:4000", ip, &port) == SX_OK && strcmp(ip, "127.0.0.1") == 0 && port == 4000);
    const char *bad_hp[] = {"", "127.0.0.1", "127.0.0.1:", ":80", "127.0.0.1:0", "127.0.0.1:65536", "host:80",
                            "127.0.0.1:80x", "127.0.0.1:-1", "1.2.3.4.5:80"};
    for (size_t i = 0; i < sizeof(bad_hp) / sizeof(bad_hp[0]); i++) CHECK(sx_parse_hostport(bad_hp[i], ip, &port) == SX_ERR);
    CHECK(sx_parse_hostport(NULL, ip, &port) == SX_ERR);

    /* sequence numbers: read in e3.backups order, continued (never moved back), unknown ids
     * refused */
    rt_table *rt = rt_new();
    rep_primary *p = rep_primary_new(rt, NULL, "prim", "b1,b2", err);
    CHECK(p);
    char ids[REP_MAX_BACKUPS][E3RPC_ID_LEN];
    uint64_t last[REP_MAX_BACKUPS];
    CHECK_EQ_INT(rep_primary_sequences(p, ids, last, REP_MAX_BACKUPS), 2);
    CHECK(strcmp(ids[0], "b1") == 0 && strcmp(ids[1], "b2") == 0 && last[0] == 0 && last[1] == 0);
    CHECK_EQ_INT(rep_primary_continue(p, "b2", 77), 0);
    CHECK_EQ_INT(rep_primary_continue(p, "b2", 5), 0); /* no move back */
    CHECK_EQ_INT(rep_primary_continue(p, "b9", 5), -1);
    CHECK_EQ_INT(rep_primary_sequences(p, ids, last, 1), 1);
    CHECK(last[0] == 0);
    CHECK_EQ_INT(rep_primary_sequences(p, ids, last, REP_MAX_BACKUPS), 2);
    CHECK(last[1] == 77);
    rep_primary_release(p);
    rt_free(rt);

    /* the importer alone: a frame for another instance is refused with the reason, ready never
     * runs; the importer stays done */
    eng *e = eng_new(1, 0, err);
    CHECK(e);
    CHECK_EQ_INT(eng_deploy(e, 1, "kvs", "", 0, err), ENG_OK);
    sx_import_spec spec = {.e = e, .engine_id = 1, .instance_id = "inst-x", .type = "kvs", .source_ip = "127.0.0.1",
                           .port = free_tcp_port(), .accept_timeout_ms = 3000, .ready = count_ready};
    sx_importer *im = sx_importer_start(&spec, err);
    CHECK(im);
    svc_buf_reset(&b);
    CHECK_EQ_INT(sx_encode(&b, "inst-y", "kvs", NULL, 0, NULL, 0, err), SX_OK);
    CHECK_EQ_INT(sx_send_frame("127.0.0.1", spec.port, b.data, b.len, err), SX_ERR);
    CHECK(strstr(err, "importer: state_xfer: the state is of instance inst-y, not inst-x"));
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 2000 && !sx_importer_done(im); i++) nanosleep(&ms, NULL);
    CHECK(sx_importer_done(im) && !sx_importer_ok(im) && ready_calls == 0);
    sx_importer_stop(im);
    /* a good frame: imported, ready, OK */
    im = sx_importer_start(&spec, err);
    CHECK(im);
    svc_buf st = {0};
    CHECK_EQ_INT(sx_export_frame(e, 1, "inst-x", NULL, &st, err), SX_OK); /* an empty kvs, as exported */
    CHECK_EQ_INT(sx_send_frame("127.0.0.1", spec.port, st.data, st.len, err), SX_OK);
    for (int i = 0; i < 2000 && !sx_importer_done(im); i++) nanosleep(&ms, NULL);
    CHECK(sx_importer_ok(im) && ready_calls == 1);
    sx_importer_stop(im);
    /* nobody connects: gives up after the accept timeout, then the port is free again */
    spec.accept_timeout_ms = 100;
    im = sx_importer_start(&spec, err);
    CHECK(im);
    for (int i = 0; i < 2000 && !sx_importer_done(im); i++) nanosleep(&ms, NULL);
    CHECK(sx_importer_done(im) && !sx_importer_ok(im));
    CHECK_EQ_INT(sx_send_frame("127.0.0.1", spec.port, st.data, st.len, err), SX_ERR);
    CHECK(strstr(err, "connect to 127.0.0.1"));
    sx_importer_stop(im);
    /* the exporter first: its connect is refused until the importer listens 150 ms later, then the
     * frame goes through; with nobody listening it gives up after its wait, naming it */
    ready_calls = 0;
    spec.accept_timeout_ms = 3000;
    late_start late = {.spec = &spec, .delay_ms = 150};
    pthread_t starter;
    CHECK(pthread_create(&starter, NULL, start_late, &late) == 0);
    int fd = sx_connect_importer("127.0.0.1", spec.port, 3000, err);
    CHECK(fd >= 0);
    CHECK(pthread_join(starter, NULL) == 0 && late.im);
    CHECK_EQ_INT(sx_send_frame_on(fd, st.data, st.len, err), SX_OK);
    for (int i = 0; i < 2000 && !sx_importer_done(late.im); i++) nanosleep(&ms, NULL);
    CHECK(sx_importer_ok(late.im) && ready_calls == 1);
    sx_importer_stop(late.im);
    CHECK_EQ_INT(sx_connect_importer("127.0.0.1", spec.port, 50, err), -1);
    CHECK(strstr(err, "no importer listening within 50 ms"));
    /* cancelled while waiting: joined at once; the port can be listened on again */
    spec.accept_timeout_ms = SX_ACCEPT_TIMEOUT_MS;
    im = sx_importer_start(&spec, err);
    CHECK(im);
    sx_importer_stop(im);
    im = sx_importer_start(&spec, err);
    CHECK(im);
    sx_importer_stop(im);

    svc_buf_free(&st);
    svc_buf_free(&b);
    eng_free(e);
    return 0;
}
