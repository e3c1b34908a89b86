/* SPDX-License-Identifier: Apache-2.0 */
/* cli: a small hand-written parser (getopt_long is a GNU extension and keeps global state). */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "e3svc/errbuf.h"

static int cli_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static E3_DEFINE_SET_ERROR(cli_error, CLI_ERRBUF_LEN, CLI_ERR)

void cli_usage(FILE *f) {
    fputs("usage: e3-agent --cluster NAME (--node NAME | --server NAME) [options]\n"
          "\n"
          "E3's host agent: registers a computing node with the controller, streams heartbeats,\n"
          "and runs the microservice instances the controller deploys on it.\n"
          "\n"
          "Controller link:\n"
          "  --controller HOST:PORT[,HOST:PORT...]\n"
          "                           controllers' gRPC addresses, up to 16 (default " CLI_DEFAULT_CONTROLLER ");\n"
          "                           prefers one by a hash of cluster/server, moves to the next\n"
          "                           when it fails\n"
          "  --token-file PATH        file whose first line is the API token (agent scope)\n"
          "  --tls-ca PATH            speak TLS to the controller, trusting these PEM certificates\n"
          "                           (its own, if self-signed); default plaintext\n"
          "                           (else env " CLI_TOKEN_ENV ", else --token)\n"
          "  --token TOKEN            the token on the command line (visible to ps: prefer the above)\n"
          "  --agent-id ID            this process's identity, 1-64 chars (default: random UUID)\n"
          "  --heartbeat-ms MS        heartbeat period (default: the period Register answers)\n"
          "Node identity:\n"
          "  --cluster NAME           cluster name, as created through the REST API (required)\n"
          "  --node NAME              node name in the cluster, e.g. \"s0/host\" (default <server>/host)\n"
          "  --server NAME            server name (default: the node name's part before '/')\n"
          "  --kind host|smartnic     node kind (default host)\n"
          "  --address IP             IPv4 the instances serve on (sent to the controller;\n"
          "                           default " CLI_DEFAULT_ADDRESS ")\n"
          "Runtime:\n"
          "  --workers N              engine worker threads, 1..64 (default 2)\n"
          "  --forward-timeout-ms MS  a request forwarded downstream fails after MS (default 2000)\n"
          "  --power-idle-w W         power model: watts at 0% CPU (default 83, \"beefy\")\n"
          "  --power-peak-w W         power model: watts at 100% CPU (default 201, \"beefy\")\n"
          "  --powercap-root DIR      powercap sysfs root (default /sys/class/powercap); RAPL is used\n"
          "                           when it has intel-rapl package domains, else the model\n"
          "  --cpu-source SRC         node CPU utilisation: machine (/proc/stat, default) or engine\n"
          "                           (its workers' busy time: for several agents on one machine)\n"
          "  --log-level LEVEL        error|warn|info|debug (default info), on stderr\n"
          "Host link (emulated rack: the host reaches the ToR only through its SmartNICs):\n"
          "  --memif SOCKET           a SmartNIC's host link: DPDK net_memif client on the socket\n"
          "                           e3-nic --memif serves (the emulated PCIe path); once per NIC,\n"
          "                           up to 4, teamed by flow hash. Without it: kernel sockets\n"
          "  --file-prefix NAME       DPDK runtime files under /var/run/dpdk/NAME (default e3-agent-PID)\n"
          "  --poll busy|adaptive     host link polling (default adaptive: sleeps when idle)\n"
          "  --eal \"WORDS\"           more EAL arguments\n"
          "  -h, --help               this text\n"
          "\n"
          "Prints \"e3-agent: registered <node> as <node id> (heartbeat <ms> ms, power source\n"
          "<rapl|model>)\" on stdout at each registration. SIGTERM/SIGINT: clean stop, exit 0.\n",
          f);
}

static int cli_uint(const char *opt, const char *v, unsigned long min, unsigned long max, unsigned long *out,
                    char *err) {
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (errno || end == v || *end || v[0] == '-' || x < min || x > max)
        return cli_error(err, "%s: \"%s\" is not an integer in %lu..%lu", opt, v, min, max);
    *out = x;
    return CLI_OK;
}

static int cli_watts(const char *opt, const char *v, double *out, char *err) {
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= 0) || x > 1e6)
        return cli_error(err, "%s: \"%s\" is not a number of watts", opt, v);
    *out = x;
    return CLI_OK;
}

int cli_parse(int argc, char **argv, cli_opts *o, char *err) {
    memset(o, 0, sizeof(*o));
    o->controller = CLI_DEFAULT_CONTROLLER;
    o->kind = E3RPC_NODE_HOST;
    o->address = CLI_DEFAULT_ADDRESS;
    o->workers = CLI_DEFAULT_WORKERS;
    o->idle_w = CLI_DEFAULT_IDLE_W;
    o->peak_w = CLI_DEFAULT_PEAK_W;
    o->log_level = ALOG_INFO;
    const char *dp_opt = NULL; /* a host link option given, for the error without --memif */
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            o->help = 1;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0) return cli_error(err, "unexpected argument \"%s\"", arg);
        char name[64];
        const char *eq = strchr(arg, '='), *v;
        size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (nlen >= sizeof(name)) return cli_error(err, "unknown option \"%s\"", arg);
        memcpy(name, arg, nlen);
        name[nlen] = '\0';
        if (eq) {
            v = eq + 1;
        } else {
            if (i + 1 >= argc) return cli_error(err, "%s needs a value", name);
            v = argv[++i];
        }
        unsigned long u;
        if (strcmp(name, "--controller") == 0) o->controller = v;
        else if (strcmp(name, "--token") == 0) o->token = v;
        else if (strcmp(name, "--token-file") == 0) o->token_file = v;
        else if (strcmp(name, "--tls-ca") == 0) o->tls_ca = v;
        else if (strcmp(name, "--cluster") == 0) o->cluster = v;
        else if (strcmp(name, "--node") == 0) o->node = v;
        else if (strcmp(name, "--server") == 0) o->server = v;
        else if (strcmp(name, "--address") == 0) o->address = v;
        else if (strcmp(name, "--powercap-root") == 0) o->powercap_root = v;
        else if (strcmp(name, "--cpu-source") == 0) {
            if (strcmp(v, "machine") == 0) o->cpu_from_engine = 0;
            else if (strcmp(v, "engine") == 0) o->cpu_from_engine = 1;
            else return cli_error(err, "--cpu-source: \"%s\" is not machine or engine", v);
        }
        else if (strcmp(name, "--agent-id") == 0) {
            if (!*v || strlen(v) >= E3RPC_ID_LEN) return cli_error(err, "--agent-id must be 1-%d characters", E3RPC_ID_LEN - 1);
            o->agent_id = v;
        } else if (strcmp(name, "--kind") == 0) {
            if (strcmp(v, "host") == 0) o->kind = E3RPC_NODE_HOST;
            else if (strcmp(v, "smartnic") == 0) o->kind = E3RPC_NODE_SMARTNIC;
            else return cli_error(err, "--kind: \"%s\" is not host or smartnic", v);
        } else if (strcmp(name, "--workers") == 0) {
            if (cli_uint(name, v, 1, 64, &u, err) != CLI_OK) return CLI_ERR;
            o->workers = (unsigned)u;
        } else if (strcmp(name, "--heartbeat-ms") == 0) {
            if (cli_uint(name, v, 1, 60000, &u, err) != CLI_OK) return CLI_ERR;
            o->heartbeat_ms = (uint32_t)u;
        } else if (strcmp(name, "--forward-timeout-ms") == 0) {
            if (cli_uint(name, v, 1, 600000, &u, err) != CLI_OK) return CLI_ERR;
            o->forward_timeout_ms = (uint32_t)u;
        } else if (strcmp(name, "--power-idle-w") == 0) {
            if (cli_watts(name, v, &o->idle_w, err) != CLI_OK) return CLI_ERR;
        } else if (strcmp(name, "--power-peak-w") == 0) {
            if (cli_watts(name, v, &o->peak_w, err) != CLI_OK) return CLI_ERR;
        } else if (strcmp(name, "--memif") == 0) {
            if (o->n_memif == CLI_MAX_MEMIF) return cli_error(err, "--memif: at most %d host links", CLI_MAX_MEMIF);
            if (!*v || strchr(v, ',')) return cli_error(err, "--memif: \"%s\" is not a socket path (no commas)", v);
            o->memifs[o->n_memif++] = v;
        } else if (strcmp(name, "--file-prefix") == 0) {
            if (!*v || strchr(v, '/')) return cli_error(err, "--file-prefix: \"%s\" is not a name", v);
            o->file_prefix = v, dp_opt = "--file-prefix";
        } else if (strcmp(name, "--poll") == 0) {
            if (strcmp(v, "busy") == 0) o->busy_poll = 1;
            else if (strcmp(v, "adaptive") == 0) o->busy_poll = 0;
            else return cli_error(err, "--poll: \"%s\" is not busy or adaptive", v);
            dp_opt = "--poll";
        } else if (strcmp(name, "--eal") == 0) {
            o->eal_extra = v, dp_opt = "--eal";
        } else if (strcmp(name, "--log-level") == 0) {
            if (alog_parse_level(v, &o->log_level) != 0)
                return cli_error(err, "--log-level: \"%s\" is not error, warn, info or debug", v);
        } else {
            return cli_error(err, "unknown option \"%s\" (see --help)", name);
        }
    }
    if (o->help) return CLI_OK;
    char ctl_err[CTL_ERRBUF_LEN];
    if (ctl_parse(o->controller, &o->controllers, ctl_err) != CTL_OK) return cli_error(err, "--controller: %s", ctl_err);
    if (dp_opt && !o->n_memif) return cli_error(err, "%s needs --memif (it configures the host link)", dp_opt);
    if (o->peak_w < o->idle_w) return cli_error(err, "--power-peak-w must be at least --power-idle-w");
    if (!o->cluster || !*o->cluster) return cli_error(err, "--cluster is required");
    if (!o->node && !o->server) return cli_error(err, "--node or --server is required");
    if (!o->node) {
        snprintf(o->node_buf, sizeof(o->node_buf), "%s/%s", o->server,
                 o->kind == E3RPC_NODE_HOST ? "host" : "nic0");
        o->node = o->node_buf;
    }
    if (!o->server) {
        const char *slash = strchr(o->node, '/');
        if (!slash || slash == o->node)
            return cli_error(err, "--server is required when the node name \"%s\" has no \"<server>/\" prefix", o->node);
        snprintf(o->server_buf, sizeof(o->server_buf), "%.*s", (int)(slash - o->node), o->node);
        o->server = o->server_buf;
    }
    return CLI_OK;
}

/* Copy `s` trimmed of surrounding blanks (and a trailing newline) into out. */
static int cli_copy_trimmed(const char *s, size_t len, char *out, size_t n) {
    while (len && (*s == ' ' || *s == '\t')) s++, len--;
    while (len && strchr(" \t\r\n", s[len - 1])) len--;
    if (!len || len >= n) return CLI_ERR;
    memcpy(out, s, len);
    out[len] = '\0';
    return CLI_OK;
}

int cli_token(const cli_opts *o, const char *env_value, char *out, size_t n, char *err) {
    if (o->token_file) {
        FILE *f = fopen(o->token_file, "r");
        if (!f) return cli_error(err, "--token-file %s: %s", o->token_file, strerror(errno));
        char line[1024];
        int ok = fgets(line, sizeof(line), f) != NULL;
        fclose(f);
        if (!ok || cli_copy_trimmed(line, strlen(line), out, n) != CLI_OK)
            return cli_error(err, "--token-file %s: no token on its first line", o->token_file);
        return CLI_OK;
    }
    if (env_value && *env_value) {
        if (cli_copy_trimmed(env_value, strlen(env_value), out, n) != CLI_OK)
            return cli_error(err, "%s is empty or too long", CLI_TOKEN_ENV);
        return CLI_OK;
    }
    if (o->token && cli_copy_trimmed(o->token, strlen(o->token), out, n) == CLI_OK) return CLI_OK;
    return cli_error(err, "no token: give --token-file PATH or set %s (an API token with the agent scope)",
                     CLI_TOKEN_ENV);
}

int cli_tls_ca(const cli_opts *o, char **out, char *err) {
    *out = NULL;
    if (!o->tls_ca) return CLI_OK;
    FILE *f = fopen(o->tls_ca, "rb");
    if (!f) return cli_error(err, "--tls-ca %s: %s", o->tls_ca, strerror(errno));
    char *pem = malloc(CLI_TLS_CA_MAX + 1);
    size_t len = pem ? fread(pem, 1, CLI_TLS_CA_MAX + 1, f) : 0;
    fclose(f);
    if (!pem) return cli_error(err, "--tls-ca %s: out of memory", o->tls_ca);
    pem[len > CLI_TLS_CA_MAX ? CLI_TLS_CA_MAX : len] = '\0';
    const char *why = len > CLI_TLS_CA_MAX ? "larger than 1 MiB"
                      : !strstr(pem, "-----BEGIN CERTIFICATE-----") ? "no PEM certificate in it" : NULL;
    if (why) {
        free(pem);
        return cli_error(err, "--tls-ca %s: %s", o->tls_ca, why);
    }
    *out = pem;
    return CLI_OK;
}
