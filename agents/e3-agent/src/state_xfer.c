/* SPDX-License-Identifier: Apache-2.0 */
/*
 * state_xfer: frames are decoded from the start of a buffer each time more bytes arrive (the
 * header is small; the state is only bounds-checked), which keeps one decoder for whole buffers
 * and sockets. Sockets are non-blocking and every wait is a poll() with a timeout and, on the
 * importer, the cancel pipe.
 */
#include "state_xfer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "alog.h"
#include "e3svc/errbuf.h"

#define SX_READ_CHUNK 65536 /* bytes the importer's buffer grows by while the state length is unknown */

E3_DEFINE_SET_ERROR(sx_set_error, SX_ERRBUF_LEN, SX_ERR)

static void sx_put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint64_t sx_get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static uint64_t sx_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- frame -------------------------------------------------------------------------------- */

/* Append u8 length + bytes of `s`, which must be 1..max-1 bytes. */
static int sx_put_str(svc_buf *out, const char *what, const char *s, size_t max, char *err) {
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n >= max) return sx_set_error(err, "state_xfer: %s must be 1-%zu bytes", what, max - 1);
    uint8_t l = (uint8_t)n;
    if (svc_buf_append(out, &l, 1) != SVC_OK || svc_buf_append(out, s, n) != SVC_OK)
        return sx_set_error(err, "state_xfer: out of memory");
    return SX_OK;
}

int sx_encode_begin(svc_buf *out, const char *instance_id, const char *type, size_t *len_at, char *err) {
    uint8_t version = SX_VERSION, zero[8] = {0};
    if (svc_buf_append(out, SX_MAGIC, 4) != SVC_OK || svc_buf_append(out, &version, 1) != SVC_OK)
        return sx_set_error(err, "state_xfer: out of memory");
    if (sx_put_str(out, "instance id", instance_id, E3RPC_ID_LEN, err) != SX_OK ||
        sx_put_str(out, "service type", type, ENG_SVC_NAME_LEN, err) != SX_OK)
        return SX_ERR;
    if (svc_buf_append(out, zero, 8) != SVC_OK) return sx_set_error(err, "state_xfer: out of memory");
    *len_at = out->len - 8;
    return SX_OK;
}

int sx_encode_end(svc_buf *out, size_t len_at, const sx_seq *seq, size_t n, char *err) {
    uint64_t state_len = out->len - len_at - 8;
    if (state_len > SX_MAX_STATE)
        return sx_set_error(err, "state_xfer: state of %llu bytes exceeds %llu", (unsigned long long)state_len,
                            (unsigned long long)SX_MAX_STATE);
    if (n > REP_MAX_BACKUPS) return sx_set_error(err, "state_xfer: %zu sequence numbers, at most %d", n, REP_MAX_BACKUPS);
    sx_put_u64(out->data + len_at, state_len);
    uint8_t count = (uint8_t)n, v[8];
    if (svc_buf_append(out, &count, 1) != SVC_OK) return sx_set_error(err, "state_xfer: out of memory");
    for (size_t i = 0; i < n; i++) {
        if (sx_put_str(out, "backup id", seq[i].backup_id, E3RPC_ID_LEN, err) != SX_OK) return SX_ERR;
        sx_put_u64(v, seq[i].last_seq);
        if (svc_buf_append(out, v, 8) != SVC_OK) return sx_set_error(err, "state_xfer: out of memory");
    }
    return SX_OK;
}

int sx_encode(svc_buf *out, const char *instance_id, const char *type, const uint8_t *state, size_t state_len,
              const sx_seq *seq, size_t n, char *err) {
    size_t at;
    if (sx_encode_begin(out, instance_id, type, &at, err) != SX_OK) return SX_ERR;
    if (state_len > SX_MAX_STATE)
        return sx_set_error(err, "state_xfer: state of %zu bytes exceeds %llu", state_len,
                            (unsigned long long)SX_MAX_STATE);
    if (state_len && svc_buf_append(out, state, state_len) != SVC_OK) return sx_set_error(err, "state_xfer: out of memory");
    return sx_encode_end(out, at, seq, n, err);
}

/* `n` more bytes at `pos` for field `what`: else SX_MORE (or SX_ERR at eof) from sx_decode. */
#define SX_NEED(n, what)                                                                          \
    do {                                                                                          \
        if (len - pos < (n)) {                                                                    \
            if (eof) return sx_set_error(err, "state_xfer: frame truncated in the %s", (what));   \
            if (need) *need = pos + (n);                                                          \
            return SX_MORE;                                                                       \
        }                                                                                         \
    } while (0)

/* A length-prefixed string of 1..max-1 bytes without NULs at `pos` into `dst`. */
#define SX_STR(dst, max, what)                                                                    \
    do {                                                                                          \
        SX_NEED(1, what " length");                                                               \
        size_t l_ = buf[pos];                                                                     \
        if (l_ == 0 || l_ >= (max))                                                               \
            return sx_set_error(err, "state_xfer: %s length %zu is not in 1..%d", what, l_, (max) - 1); \
        pos++;                                                                                    \
        SX_NEED(l_, what);                                                                        \
        if (memchr(buf + pos, 0, l_)) return sx_set_error(err, "state_xfer: %s holds a NUL byte", what); \
        memcpy((dst), buf + pos, l_);                                                             \
        (dst)[l_] = '\0';                                                                         \
        pos += l_;                                                                                \
    } while (0)

int sx_decode(const uint8_t *buf, size_t len, int eof, const char *want_id, const char *want_type, sx_frame *out,
              size_t *need, char *err) {
    size_t pos = 0;
    memset(out, 0, sizeof(*out));
    if (memcmp(buf, SX_MAGIC, len < 4 ? len : 4) != 0) return sx_set_error(err, "state_xfer: bad magic (not a state frame)");
    SX_NEED(4, "magic");
    pos = 4;
    SX_NEED(1, "version");
    if (buf[pos] != SX_VERSION) return sx_set_error(err, "state_xfer: frame version %u, this agent reads %d", buf[pos], SX_VERSION);
    pos++;
    SX_STR(out->instance_id, E3RPC_ID_LEN, "instance id");
    if (want_id && strcmp(out->instance_id, want_id) != 0)
        return sx_set_error(err, "state_xfer: the state is of instance %s, not %s", out->instance_id, want_id);
    SX_STR(out->type, ENG_SVC_NAME_LEN, "service type");
    if (want_type && strcmp(out->type, want_type) != 0)
        return sx_set_error(err, "state_xfer: the state is of a %s, instance %s is a %s", out->type,
                            out->instance_id, want_type);
    SX_NEED(8, "state length");
    out->state_len = sx_get_u64(buf + pos);
    if (out->state_len > SX_MAX_STATE)
        return sx_set_error(err, "state_xfer: state of %llu bytes exceeds %llu", (unsigned long long)out->state_len,
                            (unsigned long long)SX_MAX_STATE);
    pos += 8;
    SX_NEED((size_t)out->state_len, "state");
    out->state = buf + pos;
    pos += (size_t)out->state_len;
    SX_NEED(1, "sequence count");
    out->n_seq = buf[pos++];
    if (out->n_seq > REP_MAX_BACKUPS)
        return sx_set_error(err, "state_xfer: %zu sequence numbers, at most %d", out->n_seq, REP_MAX_BACKUPS);
    for (size_t i = 0; i < out->n_seq; i++) {
        SX_STR(out->seq[i].backup_id, E3RPC_ID_LEN, "backup id");
        SX_NEED(8, "sequence number");
        out->seq[i].last_seq = sx_get_u64(buf + pos);
        pos += 8;
    }
    if (pos != len) return sx_set_error(err, "state_xfer: %zu bytes after the frame", len - pos);
    out->len = pos;
    return SX_OK;
}

/* ---- engine ops --------------------------------------------------------------------------- */

/* One op's outcome, waited for by the submitting thread. */
typedef struct sx_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;                 /* 1 once the reply came */
    int status;               /* ENG_OK / ENG_ERR */
    char err[SX_ERRBUF_LEN];  /* ENG_ERR: the op's reason */
} sx_wait;

static void sx_on_reply(void *ctx, int status, const uint8_t *resp, size_t len) {
    sx_wait *w = ctx;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    if (status != ENG_OK) snprintf(w->err, sizeof(w->err), "%.*s", (int)len, (const char *)resp);
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* An op always replies (the engine drains), so the wait ends. */
int sx_run_op(eng *e, uint32_t engine_id, eng_op_fn op, void *op_ctx, char *err) {
    sx_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    char eerr[ENG_ERRBUF_LEN];
    struct timespec ms = {0, 1000000};
    int rc;
    for (int t = 0; (rc = eng_submit_op(e, engine_id, op, op_ctx, NULL, 0, sx_on_reply, &w, eerr)) == ENG_ERR_FULL &&
                    t < SX_IO_TIMEOUT_MS;
         t++)
        nanosleep(&ms, NULL);
    if (rc != ENG_OK) return sx_set_error(err, "%s", rc == ENG_ERR_FULL ? "engine inbox full" : eerr);
    pthread_mutex_lock(&w.lock);
    while (!w.done) pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    pthread_cond_destroy(&w.cond);
    pthread_mutex_destroy(&w.lock);
    return w.status == ENG_OK ? SX_OK : sx_set_error(err, "%s", w.err);
}

typedef struct sx_export_ctx {
    const char *instance_id; /* controller id, written into the frame */
    rep_primary *primary;    /* or NULL */
    svc_buf *frame;          /* the frame, built in place (no copy of the state) */
} sx_export_ctx;

static int sx_export_op(void *op_ctx, const svc_type *type, svc_instance *inst, const uint8_t *data, size_t len,
                        svc_buf *resp, char *err) {
    sx_export_ctx *x = op_ctx;
    (void)data, (void)len, (void)resp;
    sx_seq seq[REP_MAX_BACKUPS];
    char ids[REP_MAX_BACKUPS][E3RPC_ID_LEN];
    uint64_t last[REP_MAX_BACKUPS];
    size_t at, n = 0;
    if (sx_encode_begin(x->frame, x->instance_id, type->name, &at, err) != SX_OK) return ENG_ERR;
    if (type->export_state && type->export_state(inst, x->frame, err) != SVC_OK) return ENG_ERR;
    /* Same op as the state: no request runs between, so the numbers match the state exactly.
     * The destination takes them as confirmed: first let the backups confirm (or get resent)
     * every update; what is still owed after SX_DRAIN_MS is jumped over there (a gap). */
    if (x->primary) {
        (void)rep_primary_drain(x->primary, SX_DRAIN_MS);
        n = rep_primary_sequences(x->primary, ids, last, REP_MAX_BACKUPS);
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(seq[i].backup_id, ids[i], E3RPC_ID_LEN);
        seq[i].last_seq = last[i];
    }
    return sx_encode_end(x->frame, at, seq, n, err) == SX_OK ? ENG_OK : ENG_ERR;
}

int sx_export_frame(eng *e, uint32_t engine_id, const char *instance_id, rep_primary *primary, svc_buf *frame,
                    char *err) {
    sx_export_ctx x = {.instance_id = instance_id, .primary = primary, .frame = frame};
    svc_buf_reset(frame);
    return sx_run_op(e, engine_id, sx_export_op, &x, err);
}

typedef struct sx_import_ctx {
    const sx_frame *f;    /* what to load */
    rep_primary *primary; /* or NULL */
    int own;              /* 1: the frame is this instance's own state (its numbers are ours) */
} sx_import_ctx;

static int sx_import_op(void *op_ctx, const svc_type *type, svc_instance *inst, const uint8_t *data, size_t len,
                        svc_buf *resp, char *err) {
    sx_import_ctx *x = op_ctx;
    (void)data, (void)len;
    if (!type->import_state) {
        if (x->f->state_len) return eng_set_error(err, "%s is stateless: it takes no state", type->name);
    } else if (type->import_state(inst, x->f->state, (size_t)x->f->state_len, err) != SVC_OK) {
        return ENG_ERR;
    }
    if (x->primary) {
        /* The import is recorded as replication records like any change; the backups already
         * hold this state (they followed the source under the same primary id), and a whole
         * state rarely fits one datagram, so drop them here rather than let the engine's drain
         * after this op send them (and take a sequence number for them). */
        if (type->drain_log && type->drain_log(inst, resp, err) != SVC_OK) return ENG_ERR;
        svc_buf_reset(resp);
        /* The log hook runs only inside the instance, and the instance's port is not open yet:
         * no update can take a number before these are in place. Another instance's numbers
         * (a copy) count another primary's updates: not ours to continue. */
        for (size_t i = 0; x->own && i < x->f->n_seq; i++)
            if (rep_primary_continue(x->primary, x->f->seq[i].backup_id, x->f->seq[i].last_seq) != 0)
                alog(ALOG_WARN, "import of %s: backup %s of the source is not a backup here; its number is dropped",
                     x->f->instance_id, x->f->seq[i].backup_id);
    }
    return ENG_OK;
}

int sx_import_frame(eng *e, uint32_t engine_id, const char *instance_id, const sx_frame *f, rep_primary *primary,
                    char *err) {
    sx_import_ctx x = {.f = f, .primary = primary, .own = strcmp(f->instance_id, instance_id) == 0};
    return sx_run_op(e, engine_id, sx_import_op, &x, err);
}

/* ---- sockets ------------------------------------------------------------------------------ */

int sx_parse_hostport(const char *s, char *ip, uint16_t *port) {
    const char *colon = s ? strrchr(s, ':') : NULL;
    struct in_addr a;
    char host[16];
    if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host)) return SX_ERR;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    char *end;
    errno = 0;
    unsigned long p = strtoul(colon + 1, &end, 10);
    if (inet_pton(AF_INET, host, &a) != 1 || !colon[1] || *end || errno || p == 0 || p > 65535 || colon[1] == '-' ||
        colon[1] == '+')
        return SX_ERR;
    memcpy(ip, host, sizeof(host));
    *port = (uint16_t)p;
    return SX_OK;
}

/* Wait for `events` on `fd` (or input on `cancel_fd`, -1: none) up to `timeout_ms`. Returns 1
 * ready, 0 timed out, -1 cancelled or failed. */
static int sx_wait_fd(int fd, short events, int cancel_fd, uint32_t timeout_ms) {
    struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = cancel_fd, .events = POLLIN}};
    int rc;
    do rc = poll(p, cancel_fd >= 0 ? 2 : 1, (int)timeout_ms);
    while (rc < 0 && errno == EINTR);
    if (rc < 0 || (cancel_fd >= 0 && p[1].revents)) return -1;
    return rc > 0;
}

static int sx_nonblock(int fd) {
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Send all `n` bytes; SX_ERR after SX_IO_TIMEOUT_MS without progress or on a socket error. */
static int sx_write_all(int fd, const uint8_t *p, size_t n, int cancel_fd, char *err) {
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return sx_set_error(err, "send: %s", strerror(errno));
        int r = sx_wait_fd(fd, POLLOUT, cancel_fd, SX_IO_TIMEOUT_MS);
        if (r == 0) return sx_set_error(err, "send: no progress for %d ms", SX_IO_TIMEOUT_MS);
        if (r < 0) return sx_set_error(err, "send: cancelled");
    }
    return SX_OK;
}

/* Read one line (without its '\n') into `line` within `timeout_ms`. */
static int sx_read_line(int fd, char *line, size_t cap, uint32_t timeout_ms, char *err) {
    size_t n = 0;
    uint64_t deadline = sx_now_ms() + timeout_ms;
    for (;;) {
        uint64_t now = sx_now_ms();
        if (now >= deadline) return sx_set_error(err, "no answer from the importer within %u ms", timeout_ms);
        int r = sx_wait_fd(fd, POLLIN, -1, (uint32_t)(deadline - now));
        if (r == 0) continue;
        if (r < 0) return sx_set_error(err, "poll: %s", strerror(errno));
        ssize_t got = recv(fd, line + n, cap - 1 - n, 0);
        if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (got < 0) return sx_set_error(err, "reading the importer's answer: %s", strerror(errno));
        if (got == 0) return sx_set_error(err, "the importer closed the connection without an answer");
        n += (size_t)got;
        line[n] = '\0';
        char *nl = memchr(line, '\n', n);
        if (nl) {
            *nl = '\0';
            return SX_OK;
        }
        if (n == cap - 1) return SX_OK; /* over-long: judged as it is */
    }
}

/* A TCP connection to `ip`:`port` within SX_CONNECT_TIMEOUT_MS, non-blocking; -1 with `err` (and
 * errno the connect's, when it failed). */
static int sx_connect(const char *ip, uint16_t port, char *err) {
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
    if (inet_pton(AF_INET, ip, &to.sin_addr) != 1) return sx_set_error(err, "bad address %s", ip), -1;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return sx_set_error(err, "socket: %s", strerror(errno)), -1;
    if (sx_nonblock(fd) != 0) goto fail;
    if (connect(fd, (struct sockaddr *)&to, sizeof(to)) == 0) return fd;
    if (errno != EINPROGRESS) goto fail;
    int r = sx_wait_fd(fd, POLLOUT, -1, SX_CONNECT_TIMEOUT_MS), so = 0;
    socklen_t sl = sizeof(so);
    if (r == 0) {
        sx_set_error(err, "connect to %s:%u: no answer within %d ms", ip, port, SX_CONNECT_TIMEOUT_MS);
        close(fd);
        errno = ETIMEDOUT;
        return -1;
    }
    if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) != 0) goto fail;
    if (so == 0) return fd;
    errno = so;
fail:;
    int why = errno;
    sx_set_error(err, "connect to %s:%u: %s", ip, port, strerror(why));
    close(fd);
    errno = why; /* sx_connect_importer retries a refused one */
    return -1;
}

/* `fd` once its importer's first line is SX_GREETING; else closed, -1 with the reason. */
static int sx_greeted(int fd, const char *ip, uint16_t port, char *err) {
    char line[SX_ANSWER_LEN], why[SX_ERRBUF_LEN];
    if (sx_read_line(fd, line, sizeof(line), SX_GREETING_TIMEOUT_MS, why) != SX_OK)
        sx_set_error(err, "%s:%u is no importer ready for this state: %s", ip, port, why);
    else if (strncmp(line, "ERR ", 4) == 0)
        sx_set_error(err, "importer: %s", line + 4);
    else if (strcmp(line, SX_GREETING) != 0)
        sx_set_error(err, "%s:%u is no importer: it said \"%.64s\"", ip, port, line);
    else
        return fd;
    close(fd);
    return -1;
}

int sx_connect_importer(const char *ip, uint16_t port, uint32_t listen_wait_ms, char *err) {
    uint64_t deadline = sx_now_ms() + listen_wait_ms;
    struct timespec pause = {0, SX_LISTEN_RETRY_MS * 1000000L};
    for (;;) {
        errno = 0;
        int fd = sx_connect(ip, port, err);
        if (fd >= 0) return sx_greeted(fd, ip, port, err);
        if (errno != ECONNREFUSED) return -1;
        if (sx_now_ms() >= deadline) {
            char why[SX_ERRBUF_LEN];
            snprintf(why, sizeof(why), "%s", err);
            sx_set_error(err, "%s (no importer listening within %u ms)", why, listen_wait_ms);
            return -1;
        }
        nanosleep(&pause, NULL);
    }
}

int sx_send_frame(const char *ip, uint16_t port, const uint8_t *frame, size_t len, char *err) {
    int fd = sx_connect_importer(ip, port, 0, err);
    return fd < 0 ? SX_ERR : sx_send_frame_on(fd, frame, len, err);
}

int sx_send_frame_on(int fd, const uint8_t *frame, size_t len, char *err) {
    char line[SX_ANSWER_LEN];
    int rc = SX_OK;
    /* Send, watching for an early answer: an importer that refuses the header says why at once
     * and closes, and its reason beats "connection reset". */
    while (len && rc == SX_OK) {
        struct pollfd p = {.fd = fd, .events = POLLOUT | POLLIN};
        int r = poll(&p, 1, SX_IO_TIMEOUT_MS);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) rc = sx_set_error(err, "poll: %s", strerror(errno));
        else if (r == 0) rc = sx_set_error(err, "send: no progress for %d ms", SX_IO_TIMEOUT_MS);
        else if (p.revents & (POLLIN | POLLHUP | POLLERR)) break; /* an answer, or the error below */
        else {
            ssize_t w = send(fd, frame, len, MSG_NOSIGNAL);
            if (w > 0) frame += w, len -= (size_t)w;
            else if (w < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
                rc = sx_set_error(err, "send: %s", strerror(errno));
        }
    }
    int sent = rc == SX_OK && len == 0;
    if (rc == SX_OK && (rc = sx_read_line(fd, line, sizeof(line), SX_ANSWER_TIMEOUT_MS, err)) == SX_OK) {
        if (strncmp(line, "ERR ", 4) == 0) rc = sx_set_error(err, "importer: %s", line + 4);
        else if (strcmp(line, "OK") != 0) rc = sx_set_error(err, "unexpected answer \"%.64s\"", line);
        else if (len) rc = sx_set_error(err, "the importer answered OK before the whole frame was sent");
    } else if (rc != SX_OK && sent) {
        /* The whole frame is there and the answer is lost: the importer may serve it already. */
        rc = SX_UNSURE;
    }
    close(fd);
    return rc == SX_OK || rc == SX_UNSURE ? rc : SX_ERR;
}

/* ---- the importer ------------------------------------------------------------------------- */

struct sx_importer {
    sx_import_spec spec;  /* what to import into */
    int lfd;              /* listener (closed by the thread once a connection is taken), or -1 */
    int cancel[2];        /* pipe: a byte on cancel[1] stops the thread */
    pthread_t thread;     /* the transfer thread */
    atomic_int done, ok;  /* thread finished / with success */
};

/* Read a whole frame from `fd` into a malloc'd `*buf` and decode it into `f`. */
static int sx_receive(sx_importer *im, int fd, uint8_t **buf, sx_frame *f, char *err) {
    size_t len = 0, cap = SX_READ_CHUNK, need = 0;
    const char *want_id = im->spec.any_instance ? NULL : im->spec.instance_id;
    uint8_t *b = malloc(cap);
    if (!b) return sx_set_error(err, "out of memory");
    *buf = b;
    for (;;) {
        int rc = len ? sx_decode(b, len, 0, want_id, im->spec.type, f, &need, err) : SX_MORE;
        if (rc == SX_OK) return SX_OK;
        if (rc == SX_ERR) return SX_ERR;
        if (len == cap) {
            size_t grow = need > len + SX_READ_CHUNK ? need : len + SX_READ_CHUNK;
            uint8_t *g = realloc(b, grow);
            if (!g) return sx_set_error(err, "out of memory for %zu bytes of frame", grow);
            *buf = b = g;
            cap = grow;
        }
        int r = sx_wait_fd(fd, POLLIN, im->cancel[0], SX_IO_TIMEOUT_MS);
        if (r == 0) return sx_set_error(err, "no data for %d ms", SX_IO_TIMEOUT_MS);
        if (r < 0) return sx_set_error(err, "cancelled");
        ssize_t got = recv(fd, b + len, cap - len, 0);
        if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (got < 0) return sx_set_error(err, "recv: %s", strerror(errno));
        if (got == 0) return sx_decode(b, len, 1, want_id, im->spec.type, f, NULL, err);
        len += (size_t)got;
    }
}

/* Answer the exporter one line: OK, or ERR with `why` (newlines flattened). */
static void sx_answer(int fd, int ok, const char *why) {
    char line[SX_ANSWER_LEN];
    int n = ok ? snprintf(line, sizeof(line), "OK\n") : snprintf(line, sizeof(line), "ERR %.*s\n", SX_ANSWER_LEN - 6, why);
    if (n >= (int)sizeof(line)) n = (int)sizeof(line) - 1;
    for (int i = 0; i < n - 1; i++)
        if (line[i] == '\n' || line[i] == '\r') line[i] = ' ';
    char err[SX_ERRBUF_LEN];
    if (sx_write_all(fd, (const uint8_t *)line, (size_t)n, -1, err) != SX_OK)
        alog(ALOG_WARN, "state import: answering the exporter: %s", err);
}

/* The importer's answer once the state is in and it serves, unless the test-only fault hook
 * (SX_TEST_ANSWER_ENV) drops or delays it: in moves only (`move`), not in copies. */
static void sx_answer_ok(int fd, int cancel_fd, int move, const char *instance_id) {
    const char *fault = move ? getenv(SX_TEST_ANSWER_ENV) : NULL;
    if (fault && strcmp(fault, "drop") == 0) {
        alog(ALOG_WARN, "state import of %s: test fault: the OK is dropped", instance_id);
        return;
    }
    if (fault && strncmp(fault, "delay:", 6) == 0) {
        long ms = strtol(fault + 6, NULL, 10);
        alog(ALOG_WARN, "state import of %s: test fault: the OK is delayed %ld ms", instance_id, ms);
        if (ms > 0) (void)sx_wait_fd(cancel_fd, POLLIN, -1, (uint32_t)ms); /* a cancel ends it early */
    }
    sx_answer(fd, 1, NULL);
}

/* Accept the source's connection within the accept timeout; -1 on timeout or cancel. */
static int sx_accept_source(sx_importer *im) {
    const sx_import_spec *sp = &im->spec;
    uint64_t deadline = sx_now_ms() + sp->accept_timeout_ms;
    for (;;) {
        uint64_t now = sx_now_ms();
        int r = now < deadline ? sx_wait_fd(im->lfd, POLLIN, im->cancel[0], (uint32_t)(deadline - now)) : 0;
        if (r == 0) {
            alog(ALOG_WARN, "state import of %s: no exporter connected to port %u within %u ms; still awaiting state",
                 sp->instance_id, sp->port, sp->accept_timeout_ms);
            return -1;
        }
        if (r < 0) return -1;
        struct sockaddr_in from;
        socklen_t fl = sizeof(from);
        int fd = accept(im->lfd, (struct sockaddr *)&from, &fl);
        if (fd < 0) continue; /* the peer gave up already, or EINTR */
        char peer[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &from.sin_addr, peer, sizeof(peer));
        if (sx_nonblock(fd) != 0) {
            close(fd);
            continue;
        }
        if (sp->source_ip[0] && strcmp(peer, sp->source_ip) != 0) {
            char why[SX_ERRBUF_LEN];
            snprintf(why, sizeof(why), "only %s may send the state of %s, not %s", sp->source_ip, sp->instance_id, peer);
            alog(ALOG_WARN, "state import: refused a connection: %s", why);
            sx_answer(fd, 0, why);
            close(fd);
            continue;
        }
        return fd;
    }
}

static void *sx_import_main(void *arg) {
    sx_importer *im = arg;
    const sx_import_spec *sp = &im->spec;
    uint8_t *buf = NULL;
    sx_frame f;
    char err[SX_ERRBUF_LEN];
    int fd = sx_accept_source(im);
    close(im->lfd); /* one connection per transfer; a retry comes with a new ImportState */
    im->lfd = -1;
    if (fd < 0) goto out;
    if (sx_write_all(fd, (const uint8_t *)SX_GREETING "\n", sizeof(SX_GREETING), im->cancel[0], err) != SX_OK) {
        alog(ALOG_WARN, "state import of %s: greeting the exporter: %s; still awaiting state", sp->instance_id, err);
        close(fd);
        goto out;
    }
    uint64_t t0 = sx_now_ms();
    int rc = sx_receive(im, fd, &buf, &f, err);
    if (rc == SX_OK) rc = sx_import_frame(sp->e, sp->engine_id, sp->instance_id, &f, sp->primary, err);
    if (rc == SX_OK && sx_wait_fd(im->cancel[0], POLLIN, -1, 0) != 0) rc = sx_set_error(err, "cancelled");
    if (rc == SX_OK) rc = sp->ready(sp->ready_ctx, err);
    if (rc == SX_OK) sx_answer_ok(fd, im->cancel[0], !sp->any_instance, sp->instance_id);
    else sx_answer(fd, 0, err);
    if (rc == SX_OK) {
        alog(ALOG_INFO, "state import of %s (%s) from instance %s: %zu bytes (%llu of state, %zu sequence numbers) in %llu ms; serving",
             sp->instance_id, sp->type, f.instance_id, f.len, (unsigned long long)f.state_len, f.n_seq,
             (unsigned long long)(sx_now_ms() - t0));
        atomic_store(&im->ok, 1);
    } else {
        alog(ALOG_WARN, "state import of %s failed after %llu ms: %s; still awaiting state", sp->instance_id,
             (unsigned long long)(sx_now_ms() - t0), err);
    }
    if (rc != SX_OK) { /* unread input would turn our close into a reset that can eat the answer */
        uint8_t sink[4096];
        while (recv(fd, sink, sizeof(sink), 0) > 0) {}
    }
    close(fd);
out:
    free(buf);
    atomic_store(&im->done, 1);
    return NULL;
}

sx_importer *sx_importer_start(const sx_import_spec *spec, char *err) {
    sx_importer *im = calloc(1, sizeof(*im));
    if (!im) return sx_set_error(err, "out of memory"), NULL;
    im->spec = *spec;
    im->lfd = im->cancel[0] = im->cancel[1] = -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(spec->port), .sin_addr.s_addr = htonl(INADDR_ANY)};
    int one = 1;
    if (pipe(im->cancel) != 0) {
        sx_set_error(err, "pipe: %s", strerror(errno));
        goto err;
    }
    if ((im->lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
        setsockopt(im->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(im->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(im->lfd, 4) != 0 || sx_nonblock(im->lfd) != 0) {
        sx_set_error(err, "listen on TCP port %u: %s", spec->port, strerror(errno));
        goto err;
    }
    int rc = pthread_create(&im->thread, NULL, sx_import_main, im);
    if (rc != 0) {
        sx_set_error(err, "thread: %s", strerror(rc));
        goto err;
    }
    return im;
err:
    if (im->lfd >= 0) close(im->lfd);
    if (im->cancel[0] >= 0) close(im->cancel[0]), close(im->cancel[1]);
    free(im);
    return NULL;
}

int sx_importer_done(sx_importer *im) {
    return atomic_load(&im->done);
}

int sx_importer_ok(sx_importer *im) {
    return atomic_load(&im->ok);
}

void sx_importer_stop(sx_importer *im) {
    if (!im) return;
    char b = 1;
    ssize_t w = write(im->cancel[1], &b, 1); /* the pipe is empty: never blocks */
    (void)w;
    pthread_join(im->thread, NULL);
    close(im->cancel[0]);
    close(im->cancel[1]);
    free(im);
}
