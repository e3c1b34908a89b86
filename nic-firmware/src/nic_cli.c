/* SPDX-License-Identifier: Apache-2.0 */
/* nic_cli: see nic_cli.h. */
#include "nic_cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "e3dp/eal.h"
#include "e3dp/pkt.h"

/* Copy a formatted string into o->storage; NULL when it is full. */
static char *nic_store(nic_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *nic_store(nic_opts *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *at = o->storage + o->used;
    int n = vsnprintf(at, sizeof(o->storage) - o->used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(o->storage) - o->used) return NULL;
    o->used += (size_t)n + 1;
    return at;
}

/* The value of option `name` in argv ("--name V" or "--name=V"), "" when it has none, NULL when absent. */
static const char *nic_value(int argc, char **argv, const char *name) {
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], name, n) != 0) continue;
        if (argv[i][n] == '=') return argv[i] + n + 1;
        if (argv[i][n] == '\0') return i + 1 < argc ? argv[i + 1] : "";
    }
    return NULL;
}

static int nic_has(int argc, char **argv, const char *name) {
    return nic_value(argc, argv, name) != NULL;
}

int nic_pci_address(const char *v, char *out, size_t len) {
    unsigned domain = 0, bus, dev, fn;
    int used = -1;
    if (sscanf(v, "%4x:%2x:%2x.%1x%n", &domain, &bus, &dev, &fn, &used) != 4 || v[used] != '\0') {
        domain = 0, used = -1;
        if (sscanf(v, "%2x:%2x.%1x%n", &bus, &dev, &fn, &used) != 3 || v[used] != '\0') return 0;
    }
    if (strspn(v, "0123456789abcdefABCDEF:.") != strlen(v) || dev > 0x1f || fn > 7) return 0;
    snprintf(out, len, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
    return 1;
}

int nic_uses_pci(const nic_opts *o) {
    for (size_t w = 0; w < o->n_wire; w++)
        if (o->wire_pci[w]) return 1;
    return 0;
}

/* Record wire `v`: a PCI address (a real port, found by its address) or an interface name
 * (net_af_packetN on it). */
static int nic_add_wire(nic_opts *o, const char *v, char *err) {
    size_t w = o->n_wire;
    if (w == NIC_MAX_WIRE) return nic_set_error(err, "--wire: at most %d ports", NIC_MAX_WIRE);
    o->wire_pci[w] = nic_pci_address(v, o->wire_ports[w], sizeof(o->wire_ports[w]));
    if (!o->wire_pci[w]) {
        if (!*v || strlen(v) > 15 || strchr(v, ',') || strchr(v, ' '))
            return nic_set_error(err, "--wire: \"%s\" is neither an interface name nor a PCI address", v);
        snprintf(o->wire_ports[w], sizeof(o->wire_ports[w]), "net_af_packet%zu", w);
    }
    o->wires[o->n_wire++] = v;
    return NIC_OK;
}

int nic_cli_parse(int argc, char **argv, nic_opts *o, char *err) {
    memset(o, 0, sizeof(*o));
    o->cores = NIC_CORES_DEFAULT;
    o->pace = 1;
    o->agent_argv[o->agent_argc++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--no-pace") == 0) { o->pace = 0; continue; }
        if (strcmp(arg, "--print-calibration") == 0) { o->print_calibration = 1; continue; }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) { o->help = 1; continue; }
        static const char *const own[] = {"--wire", "--gateway", "--memif", "--host-address", "--cores",
                                          "--poll", "--file-prefix", "--eal", "--stats"};
        const char *name = NULL, *v = NULL;
        for (size_t k = 0; k < sizeof(own) / sizeof(own[0]) && !name; k++) {
            size_t n = strlen(own[k]);
            if (strncmp(arg, own[k], n) != 0) continue;
            if (arg[n] == '=') name = own[k], v = arg + n + 1;
            else if (arg[n] == '\0') {
                if (i + 1 >= argc) return nic_set_error(err, "%s needs a value", own[k]);
                name = own[k], v = argv[++i];
            }
        }
        if (!name) { /* the agent's: passed through */
            if (o->agent_argc >= NIC_MAX_ARGS - 12) return nic_set_error(err, "too many arguments");
            o->agent_argv[o->agent_argc++] = argv[i];
            continue;
        }
        if (strcmp(name, "--wire") == 0) {
            if (nic_add_wire(o, v, err) != NIC_OK) return NIC_ERR;
        } else if (strcmp(name, "--gateway") == 0) {
            uint8_t mac[6];
            if (o->n_gateways == NIC_MAX_WIRE) return nic_set_error(err, "--gateway: at most %d", NIC_MAX_WIRE);
            if (dp_parse_mac(v, mac) != 0) return nic_set_error(err, "--gateway: \"%s\" is not a MAC address", v);
            o->gateways[o->n_gateways++] = v;
        } else if (strcmp(name, "--memif") == 0) {
            if (!*v || strchr(v, ',')) return nic_set_error(err, "--memif: \"%s\" is not a socket path", v);
            o->memif = v;
        } else if (strcmp(name, "--host-address") == 0) {
            o->host_address = v;
        } else if (strcmp(name, "--cores") == 0) {
            char *end;
            errno = 0;
            long n = strtol(v, &end, 10);
            if (errno || *end || n < 1 || n > 64) return nic_set_error(err, "--cores: \"%s\" is not in 1..64", v);
            o->cores = (unsigned)n;
        } else if (strcmp(name, "--poll") == 0) {
            if (strcmp(v, "busy") == 0) o->busy_poll = 1;
            else if (strcmp(v, "adaptive") == 0) o->busy_poll = 0;
            else return nic_set_error(err, "--poll: \"%s\" is not busy or adaptive", v);
        } else if (strcmp(name, "--file-prefix") == 0) {
            if (!*v || strchr(v, '/')) return nic_set_error(err, "--file-prefix: \"%s\" is not a name", v);
            o->file_prefix = v;
        } else if (strcmp(name, "--eal") == 0) {
            o->eal_extra = v;
        } else {
            o->stats_file = v;
        }
    }
    if (o->help || o->print_calibration) return NIC_OK;
    if (o->n_wire == 0) return nic_set_error(err, "--wire: at least one port is needed");
    if (o->n_gateways > o->n_wire) return nic_set_error(err, "--gateway: more gateways than --wire ports");
    if (o->memif && !o->host_address) return nic_set_error(err, "--memif needs --host-address (the host's IP)");
    /* an emulated LiquidIO II's defaults for the agent runtime */
    char **a = o->agent_argv;
    int *n = &o->agent_argc;
    if (!nic_has(*n, a, "--kind")) a[(*n)++] = "--kind", a[(*n)++] = "smartnic";
    if (!nic_has(*n, a, "--cpu-source")) a[(*n)++] = "--cpu-source", a[(*n)++] = "engine";
    if (!nic_has(*n, a, "--power-idle-w")) {
        a[(*n)++] = "--power-idle-w";
        if (!(a[(*n)++] = nic_store(o, "%.1f", NIC_DEFAULT_IDLE_W))) return nic_set_error(err, "too many arguments");
    }
    if (!nic_has(*n, a, "--power-peak-w")) { /* idle + Table 1's highest SmartNIC active watts */
        double idle = strtod(nic_value(*n, a, "--power-idle-w"), NULL); /* the agent's parser checks it */
        a[(*n)++] = "--power-peak-w";
        if (!(a[(*n)++] = nic_store(o, "%.1f", idle + nic_max_active_watts())))
            return nic_set_error(err, "too many arguments");
    }
    if (!nic_has(*n, a, "--workers")) {
        a[(*n)++] = "--workers";
        if (!(a[(*n)++] = nic_store(o, "%u", o->cores))) return nic_set_error(err, "too many arguments");
    }
    a[*n] = NULL;
    return NIC_OK;
}

int nic_eal_argv(nic_opts *o, long ncpu, char **argv, int max, int *argc, char *err) {
    dp_eal_args *a = &o->eal;
    dp_eal_config c = {.program = "e3-nic", .ncpu = ncpu, .file_prefix = o->file_prefix, .prefix_stem = "e3nic"};
    c.real_devices = nic_uses_pci(o);
    *argc = 0;
    if (dp_eal_args_init(a, &c, err) != DP_OK) return NIC_ERR;
    for (size_t w = 0; w < o->n_wire; w++) {
        int rc = o->wire_pci[w] ? dp_eal_args_words(a, "-a", err) : dp_eal_args_vdev(a, err, "%s,iface=%s",
                                                                                      o->wire_ports[w], o->wires[w]);
        if (rc == DP_OK && o->wire_pci[w]) rc = dp_eal_args_words(a, o->wire_ports[w], err);
        if (rc != DP_OK) return NIC_ERR;
    }
    if (o->memif && dp_eal_args_vdev(a, err, "net_memif0,role=server,socket=%s,socket-abstract=no", o->memif) != DP_OK)
        return NIC_ERR;
    if (dp_eal_args_words(a, o->eal_extra, err) != DP_OK) return NIC_ERR;
    if (a->argc >= max) return nic_set_error(err, "too many arguments");
    memcpy(argv, a->argv, sizeof(char *) * (size_t)(a->argc + 1));
    *argc = a->argc;
    return NIC_OK;
}

void nic_cli_usage(FILE *f) {
    fprintf(f,
            "usage: e3-nic --wire PORT [--wire PORT ...] [options] --cluster NAME --node SERVER/nicK [agent options]\n"
            "An emulated Cavium LiquidIO II SmartNIC (DPDK, no hardware): see docs/emulation.md.\n"
            "\n"
            "NIC options:\n"
            "  --wire IFACE|PCI      a wire port: net_af_packet on this interface, or a DPDK-bound PCI\n"
            "                        device ([DDDD:]BB:DD.F; needs hugepages) (up to %d)\n"
            "  --gateway MAC         next-hop MAC of the wire ports, in order (default: learnt)\n"
            "  --memif PATH          the host link: a net_memif server socket (the PCIe path)\n"
            "  --host-address IP     the host's IP: datagrams for it go over --memif\n"
            "  --cores N             emulated cnMIPS worker cores (default %d)\n"
            "  --poll busy|adaptive  traffic manager polling (default adaptive: sleeps when idle)\n"
            "  --no-pace             run microservices at host speed (no Table 1 pacing)\n"
            "  --file-prefix NAME    DPDK runtime files under /var/run/dpdk/NAME (default e3nic-PID)\n"
            "  --eal \"WORDS\"         more EAL arguments (e.g. real ports on real hardware)\n"
            "  --stats PATH          write the traffic manager's counters there as JSON every second\n"
            "  --print-calibration   print the Table 1 calibration (JSON lines) and exit\n"
            "\n"
            "Agent options (see e3-agent --help); e3-nic's defaults: --kind smartnic, --workers = --cores,\n"
            "--cpu-source engine, --power-idle-w %.0f.\n",
            NIC_MAX_WIRE, NIC_CORES_DEFAULT, NIC_DEFAULT_IDLE_W);
}
