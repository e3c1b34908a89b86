/* SPDX-License-Identifier: Apache-2.0 */
/* cli: option parsing for e3-loadgen (contract in cli.h). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_error(char *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, LG_CLI_ERRBUF_LEN, fmt, ap);
        va_end(ap);
    }
    return LG_CLI_ERR;
}

const char *lg_cli_usage(void) {
    return "usage: e3-loadgen --target HOST:PORT [options]\n"
           "  --mode closed|open     closed: --connections requests always outstanding (default);\n"
           "                         open: --rate requests/s at fixed intervals, replies or not\n"
           "  --connections N        closed loop: requests outstanding (default 8)\n"
           "  --rate R               open loop: requests/s (required with --mode open)\n"
           "  --duration S           measured seconds (default 10; per step with --knee)\n"
           "  --warmup S             seconds sent first and not counted (default 1)\n"
           "  --payload TEXT         request text; \\n in TEXT is a newline (pipelines); {seq} in TEXT\n"
           "                         becomes the request's number (1, 2, ...: one key per PUT)\n"
           "  --size BYTES           request of BYTES bytes: \"GET k\" padded with spaces (default 512)\n"
           "  --timeout-ms MS        no reply by then counts as a timeout (default 1000)\n"
           "  --instance-id ID       the frames' instance id (default 0: the instance on the port)\n"
           "  --knee                 open-loop rate search: --rate (or 1000/s) x1.5 per step\n"
           "  --json                 JSON on stdout (the default; accepted for scripts)\n"
           "Output: JSON on stdout, one summary line on stderr. Exit 0 ok, 1 the target never\n"
           "answered (or a run failed), 2 bad options.\n";
}

uint8_t *lg_cli_unescape(const char *text, size_t *len) {
    size_t n = strlen(text), o = 0;
    uint8_t *out = malloc(n + 1); /* decoding never grows the text */
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\\' && i + 1 < n && (text[i + 1] == 'n' || text[i + 1] == 't' || text[i + 1] == '\\')) {
            char c = text[++i];
            out[o++] = c == 'n' ? '\n' : c == 't' ? '\t' : '\\';
        } else {
            out[o++] = (uint8_t)text[i];
        }
    }
    *len = o;
    return out;
}

/* A number in [lo, hi], the whole text. */
static int parse_double(const char *opt, const char *v, double lo, double hi, double *out, char *err) {
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(d) || d < lo || d > hi)
        return set_error(err, "%s: \"%s\" is not a number in %g..%g", opt, v, lo, hi);
    *out = d;
    return LG_CLI_OK;
}

static int parse_uint(const char *opt, const char *v, unsigned long lo, unsigned long hi, unsigned long *out,
                      char *err) {
    char *end;
    errno = 0;
    unsigned long u = strtoul(v, &end, 10);
    if (errno || end == v || *end || v[0] == '-' || u < lo || u > hi)
        return set_error(err, "%s: \"%s\" is not an integer in %lu..%lu", opt, v, lo, hi);
    *out = u;
    return LG_CLI_OK;
}

/* HOST:PORT, split at the last colon (so "[::1]:9" and "::1:9" keep their host part). */
static int parse_target(const char *v, lg_opts *o, char *err) {
    const char *colon = strrchr(v, ':');
    if (!colon || colon == v || !colon[1]) return set_error(err, "--target: \"%s\" is not HOST:PORT", v);
    size_t hl = (size_t)(colon - v);
    if (v[0] == '[' && hl >= 2 && v[hl - 1] == ']') v++, hl -= 2; /* [v6]:port */
    if (hl >= sizeof(o->host)) return set_error(err, "--target: host part too long");
    unsigned long port;
    if (parse_uint("--target", colon + 1, 1, 65535, &port, err) != LG_CLI_OK) return LG_CLI_ERR;
    memcpy(o->host, v, hl);
    o->host[hl] = '\0';
    o->port = (uint16_t)port;
    return LG_CLI_OK;
}

int lg_cli_parse(int argc, char **argv, lg_opts *o, char *err) {
    memset(o, 0, sizeof(*o));
    o->mode = LG_MODE_CLOSED;
    o->connections = 8;
    o->duration_s = 10;
    o->warmup_s = 1;
    o->timeout_ms = 1000;
    int mode_given = 0;
    const char *payload_text = NULL;
    unsigned long size = 0;

    for (int i = 1; i < argc; i++) {
        char *arg = argv[i], name[64];
        const char *val = NULL;
        char *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) != 0) return set_error(err, "unexpected argument \"%s\"", arg);
        size_t nl = eq ? (size_t)(eq - arg) : strlen(arg);
        if (nl >= sizeof(name)) return set_error(err, "unknown option \"%s\"", arg);
        memcpy(name, arg, nl);
        name[nl] = '\0';

        /* Flags first: they take no value. */
        if (!strcmp(name, "--help") || !strcmp(name, "--knee") || !strcmp(name, "--json")) {
            if (eq) return set_error(err, "%s takes no value", name);
            if (!strcmp(name, "--help")) o->help = 1;
            if (!strcmp(name, "--knee")) o->knee = 1;
            continue; /* --json: JSON is the only output format */
        }
        static const char *const with_value[] = {"--target", "--mode", "--connections", "--rate",
                                                 "--duration", "--warmup", "--payload", "--size",
                                                 "--timeout-ms", "--instance-id"};
        int known = 0;
        for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++) known |= !strcmp(name, with_value[k]);
        if (!known) return set_error(err, "unknown option \"%s\"", name);
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else return set_error(err, "%s needs a value", name);

        unsigned long u;
        if (!strcmp(name, "--target")) {
            if (parse_target(val, o, err) != LG_CLI_OK) return LG_CLI_ERR;
            o->target = val;
        } else if (!strcmp(name, "--mode")) {
            if (!strcmp(val, "closed")) o->mode = LG_MODE_CLOSED;
            else if (!strcmp(val, "open")) o->mode = LG_MODE_OPEN;
            else return set_error(err, "--mode: \"%s\" is not closed or open", val);
            mode_given = 1;
        } else if (!strcmp(name, "--connections")) {
            if (parse_uint(name, val, 1, 65536, &u, err) != LG_CLI_OK) return LG_CLI_ERR;
            o->connections = (unsigned)u;
        } else if (!strcmp(name, "--rate")) {
            if (parse_double(name, val, 1, 10e6, &o->rate, err) != LG_CLI_OK) return LG_CLI_ERR;
        } else if (!strcmp(name, "--duration")) {
            if (parse_double(name, val, 0.01, 86400, &o->duration_s, err) != LG_CLI_OK) return LG_CLI_ERR;
        } else if (!strcmp(name, "--warmup")) {
            if (parse_double(name, val, 0, 3600, &o->warmup_s, err) != LG_CLI_OK) return LG_CLI_ERR;
        } else if (!strcmp(name, "--payload")) {
            if (!val[0]) return set_error(err, "--payload: empty request");
            payload_text = val;
        } else if (!strcmp(name, "--size")) {
            if (parse_uint(name, val, LG_CLI_MIN_SIZE, LG_MAX_PAYLOAD, &size, err) != LG_CLI_OK) return LG_CLI_ERR;
        } else if (!strcmp(name, "--instance-id")) {
            if (parse_uint(name, val, 0, UINT32_MAX, &u, err) != LG_CLI_OK) return LG_CLI_ERR;
            o->instance_id = (uint32_t)u;
        } else { /* --timeout-ms */
            if (parse_uint(name, val, 1, 600000, &u, err) != LG_CLI_OK) return LG_CLI_ERR;
            o->timeout_ms = (unsigned)u;
        }
    }
    if (o->help) return LG_CLI_OK;

    if (!o->target) return set_error(err, "--target HOST:PORT is required");
    if (payload_text && size) return set_error(err, "--payload and --size exclude each other");
    if (o->knee) {
        if (mode_given && o->mode != LG_MODE_OPEN) return set_error(err, "--knee is an open-loop search: not with --mode closed");
        o->mode = LG_MODE_OPEN;
        if (o->rate == 0) o->rate = LG_CLI_DEFAULT_KNEE_RATE;
    } else if (o->mode == LG_MODE_OPEN && o->rate == 0) {
        return set_error(err, "--rate is required with --mode open");
    }

    if (payload_text) {
        o->payload = lg_cli_unescape(payload_text, &o->payload_len);
        if (!o->payload) return set_error(err, "out of memory");
        if (o->payload_len > LG_MAX_PAYLOAD)
            return set_error(err, "--payload: %zu bytes, at most %d fit in one datagram", o->payload_len, LG_MAX_PAYLOAD);
    } else {
        /* "GET k" padded with spaces: a kvs answers it (NOT_FOUND, or the value of "k") since
         * tokens are space-separated, and an echo returns it whole. */
        o->payload_len = size ? size : LG_CLI_DEFAULT_SIZE;
        o->payload = malloc(o->payload_len);
        if (!o->payload) return set_error(err, "out of memory");
        memset(o->payload, ' ', o->payload_len);
        memcpy(o->payload, "GET k", LG_CLI_MIN_SIZE);
    }
    return LG_CLI_OK;
}

void lg_cli_free(lg_opts *o) {
    free(o->payload);
    o->payload = NULL;
}
