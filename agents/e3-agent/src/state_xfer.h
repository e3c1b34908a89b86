/* SPDX-License-Identifier: Apache-2.0 */
/*
 * state_xfer: cold migration of one instance's state between two agents over TCP
 * (docs/agents.md, "State transfer (cold migration)"). The controller deploys the instance on
 * the destination without its UDP port (awaiting state), asks the destination to import (it
 * listens), then asks the source to export (it stops serving, serialises, connects, sends).
 * Copy mode (seeding a backup) uses the same frame and importer; the command layer pauses the
 * source instead of stopping it and switches its backups once the importer has the state.
 *
 * Transfer frame, one per TCP connection (network byte order):
 *   "E3ST" | u8 version (1) | u8 id_len | instance id | u8 type_len | service type name |
 *   u64 state_len | state (the service's export_state) |
 *   u8 n_seq | n_seq x (u8 id_len | backup id | u64 last_seq)
 * id_len is 1..E3RPC_ID_LEN-1, type_len 1..ENG_SVC_NAME_LEN-1, state_len at most SX_MAX_STATE
 * (0 for a stateless service), n_seq at most REP_MAX_BACKUPS: the source primary's last seq per
 * backup (replica.h), none for an instance that is no primary. The importer answers one line:
 * "OK\n" once the state is in and the instance serves, or "ERR <reason>\n" (and stays awaiting
 * state); then it closes.
 *
 * Layers: pure frame functions (sx_encode*, sx_decode), engine ops that export from / import into
 * an instance on its own worker (sx_export_frame, sx_import_frame), blocking socket helpers with
 * timeouts, and the importer: a thread that accepts one connection and runs the import. The
 * module knows nothing of the command table; the importer hands over through a callback.
 */
#ifndef E3AGENT_STATE_XFER_H
#define E3AGENT_STATE_XFER_H

#include <stddef.h>
#include <stdint.h>

#include "e3rpc.h"
#include "engine.h"
#include "replica.h"

#define SX_OK 0
#define SX_ERR -1
#define SX_MORE 1                      /* sx_decode: a valid prefix, more bytes needed */
#define SX_UNSURE 2                    /* sx_send_frame: all sent, no answer: the importer may serve */
#define SX_ERRBUF_LEN 256              /* size of the error buffers callers pass */
#define SX_MAGIC "E3ST"                /* first 4 bytes of a frame */
#define SX_VERSION 1                   /* frame version */
#define SX_MAX_STATE (1ull << 30)      /* bytes of state in one frame, at most (1 GiB) */
#define SX_ACCEPT_TIMEOUT_MS 30000     /* importer: wait this long for the exporter to connect */
#define SX_CONNECT_TIMEOUT_MS 5000     /* exporter: TCP connect */
#define SX_LISTEN_WAIT_MS 5000         /* exporter: retry a refused connect this long (the importer may not listen yet) */
#define SX_LISTEN_RETRY_MS 2           /* exporter: pause between two refused connects */
#define SX_GREETING_TIMEOUT_MS 2000    /* exporter: wait this long for the importer's READY once connected */
#define SX_GREETING "READY"            /* the importer's first line: it is an importer, and it takes this source */
#define SX_ANSWER_TIMEOUT_MS 10000     /* exporter: wait for the importer's line once all is sent */
#define SX_IO_TIMEOUT_MS 10000         /* either side: longest silence while a frame moves */
#define SX_DRAIN_MS 250                /* exporter: wait this long for the backups to confirm every update */
#define SX_ANSWER_LEN 256              /* bytes of the importer's answer line, at most */

/* One backup's sequence number, as carried in a frame. */
typedef struct sx_seq {
    char backup_id[E3RPC_ID_LEN]; /* backup instance id */
    uint64_t last_seq;            /* last seq the primary gave it */
} sx_seq;

/* A decoded frame. `state` points into the decoded buffer. */
typedef struct sx_frame {
    char instance_id[E3RPC_ID_LEN];  /* the instance */
    char type[ENG_SVC_NAME_LEN];     /* its service type name */
    const uint8_t *state;            /* state_len bytes of export_state */
    uint64_t state_len;              /* bytes */
    size_t n_seq;                    /* entries used in seq */
    sx_seq seq[REP_MAX_BACKUPS];     /* the source primary's sequence numbers */
    size_t len;                      /* bytes of the whole frame */
} sx_frame;

/* Write a formatted reason into `err` (SX_ERRBUF_LEN bytes, may be NULL); returns SX_ERR. */
int sx_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Start a frame in `out` (appended): header up to and including a placeholder state_len, whose
 * offset goes to `*len_at`. Append the state to `out` next, then call sx_encode_end. SX_ERR on
 * an empty or over-long id or type, or no memory. */
int sx_encode_begin(svc_buf *out, const char *instance_id, const char *type, size_t *len_at, char *err);

/* Finish a frame begun at `len_at`: patch state_len (what was appended since) and append the
 * `n` sequence numbers. SX_ERR on an over-long state, too many or bad backup ids, no memory. */
int sx_encode_end(svc_buf *out, size_t len_at, const sx_seq *seq, size_t n, char *err);

/* sx_encode_begin + the state + sx_encode_end: a whole frame in `out` (appended). */
int sx_encode(svc_buf *out, const char *instance_id, const char *type, const uint8_t *state, size_t state_len,
              const sx_seq *seq, size_t n, char *err);

/* Decode the frame at the start of `buf` (`len` bytes) into `out`, checking it names instance
 * `want_id` of type `want_type` (NULL: either one unchecked). Returns SX_OK (out->len bytes
 * used; bytes after them are refused as trailing), SX_MORE when `buf` is a valid prefix and
 * `eof` is 0 (`*need`, if not NULL, gets the total length known to be needed so far), or SX_ERR
 * with the reason in `err`: bad magic or version, bad or mismatched id or type, state over
 * SX_MAX_STATE, too many sequence numbers, trailing bytes, or a truncated frame (`eof` set).
 * Checks as soon as the bytes are there, so a bad header is refused before the state comes. */
int sx_decode(const uint8_t *buf, size_t len, int eof, const char *want_id, const char *want_type, sx_frame *out,
              size_t *need, char *err);

/* ---- engine ops --------------------------------------------------------------------------- */

/* Run `op` on engine instance `engine_id` (eng_submit_op, no data; retried while its inbox is
 * full, up to SX_IO_TIMEOUT_MS) and wait for it. SX_OK, or SX_ERR with the engine's or the op's
 * reason. Not from a worker. */
int sx_run_op(eng *e, uint32_t engine_id, eng_op_fn op, void *op_ctx, char *err);

/* Serialise engine instance `engine_id` (controller id `instance_id`) into a frame in `frame`
 * (reset first): its service's export_state (nothing for a stateless one) and, for a primary
 * (`primary` not NULL), its sequence numbers, read in the same op. Runs as an op on the
 * instance's worker; blocks until it is done. Stop delivering requests to the instance first, or
 * the state and the numbers may be older than the last answered request. */
int sx_export_frame(eng *e, uint32_t engine_id, const char *instance_id, rep_primary *primary, svc_buf *frame,
                    char *err);

/* Load frame `f` into engine instance `engine_id` (controller id `instance_id`): import_state
 * (refused for a stateless type given state), then, for a primary, the import's own replication
 * records are dropped (its backups already hold that state from the source) and, when the frame
 * is the instance's own state (a move, not a copy of another instance), the numbering continues
 * from the frame's sequence numbers (ids this primary does not list are ignored). All in one op
 * on the instance's worker, before any request can reach it; blocks until done. */
int sx_import_frame(eng *e, uint32_t engine_id, const char *instance_id, const sx_frame *f, rep_primary *primary,
                    char *err);

/* ---- sockets ------------------------------------------------------------------------------ */

/* Parse "a.b.c.d:port" (port 1..65535) into `ip` (16 bytes) and `*port`. SX_OK or SX_ERR. */
int sx_parse_hostport(const char *s, char *ip, uint16_t *port);

/* Send `frame` to `ip`:`port` and return the importer's answer: SX_OK on "OK"; SX_ERR with the
 * importer's "ERR ..." line or the socket error (connect within SX_CONNECT_TIMEOUT_MS, no
 * SX_IO_TIMEOUT_MS silence while sending) in `err`: the importer does not serve this state.
 * SX_UNSURE (reason in `err`) when the whole frame went out but no answer line came within
 * SX_ANSWER_TIMEOUT_MS (timeout, close, reset): the importer may have loaded it and serve. */
int sx_send_frame(const char *ip, uint16_t port, const uint8_t *frame, size_t len, char *err);

/* A TCP connection to an importer at `ip`:`port`, for sx_send_frame_on, once the importer said
 * SX_GREETING (within SX_GREETING_TIMEOUT_MS): whatever else listens there (a stray listener, an
 * importer refusing this source with its "ERR ..." line) is no importer of ours, and no state is
 * sent. A refused connect is retried every SX_LISTEN_RETRY_MS for up to `listen_wait_ms`: the
 * controller issues a move's ImportState and ExportState together, so the exporter may be told
 * first. Lets the exporter connect before it stops serving. -1 with the reason in `err`. */
int sx_connect_importer(const char *ip, uint16_t port, uint32_t listen_wait_ms, char *err);

/* sx_send_frame on a connection from sx_connect_importer (closed here, whatever the outcome). */
int sx_send_frame_on(int fd, const uint8_t *frame, size_t len, char *err);

/* ---- the importer ------------------------------------------------------------------------- */

/* Test-only fault injection (docs/agents.md, "Never two primaries"): with this environment
 * variable set to "drop", an importer that loaded a moved instance's state and serves closes the
 * connection without its OK line; "delay:<ms>" sends the OK that much later (a cancel ends the
 * wait). Copies (an instance deployed as a backup) answer as usual. Never set in production. */
#define SX_TEST_ANSWER_ENV "E3_TEST_XFER_ANSWER"

/* Called on the importer's thread once the state is in the instance: make it serve (open its
 * port). Return SX_OK, or SX_ERR with a reason in `err` (the instance stays awaiting state). */
typedef int (*sx_ready_fn)(void *ctx, char *err);

/* What an importer imports into. */
typedef struct sx_import_spec {
    eng *e;                          /* the engine */
    uint32_t engine_id;              /* the instance in it */
    char instance_id[E3RPC_ID_LEN];  /* its controller id, checked against the frame */
    int any_instance;                /* 1: take the state of any instance of its type (a backup
                                      * seeded from its primary, copy mode), not only its own */
    char type[ENG_SVC_NAME_LEN];     /* its service type, checked against the frame */
    rep_primary *primary;            /* its replication to backups, or NULL */
    char source_ip[16];              /* accept only a connection from this IPv4 ("": any) */
    uint16_t port;                   /* TCP port to listen on, all addresses */
    uint32_t accept_timeout_ms;      /* normally SX_ACCEPT_TIMEOUT_MS */
    sx_ready_fn ready;               /* called once imported; then "OK" is answered */
    void *ready_ctx;                 /* passed to ready */
} sx_import_spec;

typedef struct sx_importer sx_importer; /* opaque: a listener and its thread */

/* Listen on 0.0.0.0:`spec->port` (SO_REUSEADDR) and start the thread: accept one connection from
 * the source (others are answered "ERR" and closed) within the accept timeout, read the frame,
 * sx_import_frame, `ready`, answer. NULL with `err` if the listener or the thread cannot start.
 * The pointers in `spec` must stay valid until sx_importer_stop. */
sx_importer *sx_importer_start(const sx_import_spec *spec, char *err);

/* 1 once the thread has finished (imported, failed, or timed out), else 0. Any thread. */
int sx_importer_done(sx_importer *im);

/* 1 if the thread finished with the state imported and `ready` succeeded. */
int sx_importer_ok(sx_importer *im);

/* Cancel the thread if it still runs (it answers the exporter "ERR cancelled" if connected and
 * the instance stays awaiting state, unless the import had already finished), join it, close
 * everything, free. An op already submitted is waited for. NULL is fine. */
void sx_importer_stop(sx_importer *im);

#endif
