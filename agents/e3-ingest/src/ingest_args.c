/* SPDX-License-Identifier: Apache-2.0 */
#include "ingest_args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char ingest_usage[] =
    "usage: e3-ingest --listen HOST:PORT [--listen HOST:PORT ...] --backend unix:PATH\n"
    "                 [--tls-cert FILE --tls-key FILE] [--parent-pid PID] [--rollup-flush-ms MS]\n"
    "                 [--tail-items N] [--tail-window-s S]\n"
    "  Takes the agents' heartbeat streams on the listen addresses and delivers them to the controller\n"
    "  at --backend (its IngestBackend service); forwards every other gRPC call there, adding\n"
    "  x-e3-peer: <caller's IP>. Prints 'e3-ingest: listening on ...' once serving.\n"
    "  --parent-pid PID: stop when that process (the controller) ends.\n"
    "  --rollup-flush-ms MS: hand the controller the rollups every MS milliseconds (10 to 60000;\n"
    "    default 1000).\n"
    "  --tail-items N: keep each node's last N heartbeats (0 to 100000; default 0: none), served as\n"
    "    e3.internal.v1.TelemetryTail to callers the controller authorizes (scope read).\n"
    "  --tail-window-s S: the seconds those N cover, as TelemetryTail reports them (0 to 600; default 0).\n";

static void set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(char *err, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, INGEST_ERRBUF_LEN, fmt, ap);
    va_end(ap);
}

/* The port of "host:port" or "[v6]:port" in *port; INGEST_ERR if either part is missing or bad. */
static int parse_listen(const char *address, int *port) {
    const char *colon = strrchr(address, ':');
    if (!colon || colon == address || colon[1] == '\0') return INGEST_ERR;
    if (address[0] == '[' && colon[-1] != ']') return INGEST_ERR; /* "[::1" or "[::1]x:1" */
    char *end = NULL;
    errno = 0;
    long value = strtol(colon + 1, &end, 10);
    if (errno || *end != '\0' || value < 0 || value > 65535 || colon[1] == '-' || colon[1] == '+') return INGEST_ERR;
    *port = (int)value;
    return INGEST_OK;
}

/* The integer value from min to max in *out; INGEST_ERR if it is missing, not a decimal integer or out of range. */
static int parse_range(const char *value, long min, long max, long *out) {
    char *end = NULL;
    errno = 0;
    long number = value ? strtol(value, &end, 10) : 0;
    if (!value || errno || end == value || *end != '\0' || number < min || number > max) return INGEST_ERR;
    *out = number;
    return INGEST_OK;
}

/* Copy value into dst (capacity len); INGEST_ERR naming the option if it is empty or too long. */
static int copy_value(char *dst, size_t len, const char *option, const char *value, char *err) {
    if (!value || !*value) {
        set_error(err, "%s needs a value", option);
        return INGEST_ERR;
    }
    if (strlen(value) >= len) {
        set_error(err, "%s is longer than %zu characters", option, len - 1);
        return INGEST_ERR;
    }
    memcpy(dst, value, strlen(value) + 1);
    return INGEST_OK;
}

int ingest_args_parse(int argc, char **argv, struct ingest_args *out, char *err) {
    memset(out, 0, sizeof(*out));
    out->port = -1;
    out->rollup_flush_ms = INGEST_ROLLUP_FLUSH_MS_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        if (strcmp(option, "--help") == 0 || strcmp(option, "-h") == 0) return INGEST_HELP;
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(option, "--listen") == 0) {
            if (out->listen_count == INGEST_MAX_LISTEN) {
                set_error(err, "--listen: at most %d addresses", INGEST_MAX_LISTEN);
                return INGEST_ERR;
            }
            char *slot = out->listen[out->listen_count];
            if (copy_value(slot, INGEST_ADDR_LEN, option, value, err) != INGEST_OK) return INGEST_ERR;
            int port;
            if (parse_listen(slot, &port) != INGEST_OK) {
                set_error(err, "--listen %s: expected HOST:PORT with a port from 0 to 65535", slot);
                return INGEST_ERR;
            }
            if (out->port >= 0 && port != out->port) {
                set_error(err, "--listen %s: every address must use the same port (%d)", slot, out->port);
                return INGEST_ERR;
            }
            out->port = port;
            out->listen_count++;
        } else if (strcmp(option, "--backend") == 0) {
            if (copy_value(out->backend, sizeof(out->backend), option, value, err) != INGEST_OK) return INGEST_ERR;
            if (strncmp(out->backend, "unix:", 5) != 0 || out->backend[5] == '\0') {
                set_error(err, "--backend %s: expected unix:PATH (the controller's socket)", out->backend);
                return INGEST_ERR;
            }
        } else if (strcmp(option, "--tls-cert") == 0) {
            if (copy_value(out->tls_cert, sizeof(out->tls_cert), option, value, err) != INGEST_OK) return INGEST_ERR;
        } else if (strcmp(option, "--tls-key") == 0) {
            if (copy_value(out->tls_key, sizeof(out->tls_key), option, value, err) != INGEST_OK) return INGEST_ERR;
        } else if (strcmp(option, "--parent-pid") == 0) {
            char *end = NULL;
            errno = 0;
            out->parent_pid = value ? strtol(value, &end, 10) : 0;
            if (!value || errno || *end != '\0' || out->parent_pid <= 0) {
                set_error(err, "--parent-pid %s: expected a process id", value ? value : "(missing)");
                return INGEST_ERR;
            }
        } else if (strcmp(option, "--rollup-flush-ms") == 0) {
            long ms;
            if (parse_range(value, INGEST_ROLLUP_FLUSH_MS_MIN, INGEST_ROLLUP_FLUSH_MS_MAX, &ms) != INGEST_OK) {
                set_error(err, "--rollup-flush-ms %s: expected milliseconds from %d to %d", value ? value : "(missing)",
                          INGEST_ROLLUP_FLUSH_MS_MIN, INGEST_ROLLUP_FLUSH_MS_MAX);
                return INGEST_ERR;
            }
            out->rollup_flush_ms = (int)ms;
        } else if (strcmp(option, "--tail-items") == 0) {
            long items;
            if (parse_range(value, 0, INGEST_TAIL_ITEMS_MAX, &items) != INGEST_OK) {
                set_error(err, "--tail-items %s: expected a count from 0 to %d", value ? value : "(missing)",
                          INGEST_TAIL_ITEMS_MAX);
                return INGEST_ERR;
            }
            out->tail_items = (int)items;
        } else if (strcmp(option, "--tail-window-s") == 0) {
            long seconds;
            if (parse_range(value, 0, INGEST_TAIL_WINDOW_S_MAX, &seconds) != INGEST_OK) {
                set_error(err, "--tail-window-s %s: expected seconds from 0 to %d", value ? value : "(missing)",
                          INGEST_TAIL_WINDOW_S_MAX);
                return INGEST_ERR;
            }
            out->tail_window_s = (int)seconds;
        } else {
            set_error(err, "unknown option %s", option);
            return INGEST_ERR;
        }
        i++; /* every option but --help takes a value */
    }
    if (out->listen_count == 0) {
        set_error(err, "--listen HOST:PORT is required");
        return INGEST_ERR;
    }
    if (out->port == 0 && out->listen_count > 1) {
        set_error(err, "--listen: port 0 (any free port) only with a single address");
        return INGEST_ERR;
    }
    if (!out->backend[0]) {
        set_error(err, "--backend unix:PATH is required");
        return INGEST_ERR;
    }
    if (!out->tls_cert[0] != !out->tls_key[0]) {
        set_error(err, "--tls-cert and --tls-key go together: give both or neither");
        return INGEST_ERR;
    }
    return INGEST_OK;
}
