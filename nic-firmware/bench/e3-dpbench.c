/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e3-dpbench: the packet pumps of `make bench-dataplane` (backend/e3/bench/dataplane.py). One DPDK
 * process per role, each with its own --file-prefix, no hugepages, no PCI:
 *   tx        --iface IF --dst-mac M --dst-ip A --src-ip B [--size N] [--flows K] --seconds S
 *             UDP frames as fast as net_af_packet on IF takes them (K source ports, round robin);
 *   rx        --iface IF --seconds S     count and free what net_af_packet on IF receives (the raw
 *             baseline: the same vdev arguments e3-nic gives its wire ports);
 *   memif-rx  --socket PATH --seconds S  a net_memif client counting what arrives (the "host" behind
 *             an e3-nic, or the far end of `memif-tx`);
 *   memif-tx  --socket PATH [--size N] --seconds S   a net_memif server sending as fast as its
 *             client takes frames (host<->NIC messages/s with `memif-rx`); it prints its figures when
 *             done sending, then stays until its client has left (see dpb_wait_peer_gone).
 * A memif server and client on one socket cannot live in one process (DPDK keeps one socket object
 * per path, listener or not), hence memif-tx + memif-rx. Frames come from dp_write_udp (libe3dp).
 *
 * Receivers count IPv4/UDP frames (others apart), stop after --seconds or at SIGINT/SIGTERM and
 * report the rate between their first and last frame; `--adaptive` makes a receiver sleep DPB_SLEEP_US after a short burst, so that it does
 * not take a core from the forwarder it measures. Senders wait for the link (memif: a client), then
 * send for --seconds. Each prints one JSON object on stdout; "ready" goes to stderr once its port is
 * up. Start-up: signals, own options, EAL, mempool, port, frames, loop on the main lcore; then the
 * port is stopped and closed, the EAL cleaned up and its runtime directory removed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "e3dp/eal.h"
#include "e3dp/memguard.h"
#include "e3dp/pkt.h"

#define DPB_OK 0
#define DPB_ERR -1
#define DPB_ERRBUF_LEN 512
#define DPB_MBUFS 8191          /* frame buffers in the pool */
#define DPB_MBUF_CACHE 256      /* per-lcore cache */
#define DPB_DESC 1024           /* rx/tx descriptors per queue */
#define DPB_BURST 64            /* frames per rx/tx burst */
#define DPB_MAX_FLOWS 1024      /* --flows limit (one frame template each) */
#define DPB_MIN_FRAME 60        /* bytes: the Ethernet minimum without FCS */
#define DPB_MAX_FRAME (DP_HDRS_LEN + DP_MAX_PAYLOAD) /* bytes: a 1500-byte MTU frame */
#define DPB_SLEEP_US 100        /* an adaptive receiver's nap after a short burst, microseconds */
#define DPB_LINK_WAIT_S 30      /* how long a memif port waits for its peer, seconds */
#define DPB_SRC_PORT 10000      /* UDP source port of flow 0 (flow k: + k) */
#define DPB_DST_PORT 9000       /* UDP destination port */
#define DPB_MAX_ARGS 20         /* EAL argv entries */

typedef enum dpb_cmd { DPB_TX, DPB_RX, DPB_MEMIF_RX, DPB_MEMIF_TX } dpb_cmd;

typedef struct dpb_opts {
    dpb_cmd cmd;                 /* the subcommand */
    const char *iface;           /* --iface: af_packet interface */
    const char *socket;          /* --socket: memif socket path */
    uint8_t dst_mac[6];          /* --dst-mac */
    uint32_t dst_ip, src_ip;     /* --dst-ip, --src-ip (network order) */
    size_t size;                 /* --size: frame bytes without FCS */
    double seconds;              /* --seconds: send time, or a receiver's longest wait */
    unsigned flows;              /* --flows: UDP source ports used */
    int adaptive;                /* --adaptive: a receiver naps when idle */
    char file_prefix[64];        /* --file-prefix (default e3dpb-PID) */
} dpb_opts;

/* Everything the loop uses: one struct, no globals but the quit flag. */
typedef struct dpb_res {
    dpb_opts o;                          /* parsed options */
    struct rte_mempool *mp;              /* frame buffers */
    uint16_t port;                       /* the one port */
    int port_started;                    /* 1: stop and close it at the end */
    uint8_t (*frames)[DPB_MAX_FRAME];    /* one template per flow (senders) */
    uint64_t count;                      /* frames sent, or IPv4/UDP frames received */
    uint64_t other;                      /* other frames received (ARP, IPv6, ...): not counted */
    uint64_t refused;                    /* frames the port did not take (senders) */
    uint64_t first, last;                /* timer cycles of the first and last frame (receivers) */
    double window_s;                     /* seconds the loop ran */
} dpb_res;

static atomic_int dpb_quit;

static void dpb_on_signal(int sig) {
    (void)sig;
    atomic_store(&dpb_quit, 1);
}

/* Fill `err` (DPB_ERRBUF_LEN bytes); returns DPB_ERR. */
static int dpb_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int dpb_error(char *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, DPB_ERRBUF_LEN, fmt, ap);
    va_end(ap);
    return DPB_ERR;
}

static void dpb_usage(FILE *f) {
    fprintf(f, "usage: e3-dpbench tx --iface IF --dst-mac M --dst-ip A --src-ip B [--size N] [--flows K] --seconds S\n"
               "       e3-dpbench rx --iface IF --seconds S [--adaptive]\n"
               "       e3-dpbench memif-rx --socket PATH --seconds S [--adaptive]\n"
               "       e3-dpbench memif-tx --socket PATH [--size N] --seconds S\n"
               "common: --file-prefix NAME (DPDK runtime files; default e3dpb-PID)\n"
               "Prints one JSON object; see backend/e3/bench/dataplane.py.\n");
}

static int dpb_parse_cmd(const char *s, dpb_cmd *out) {
    static const char *const names[] = {"tx", "rx", "memif-rx", "memif-tx"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (dpb_cmd)i;
            return DPB_OK;
        }
    return DPB_ERR;
}

static int dpb_parse_number(const char *name, const char *v, double lo, double hi, double *out, char *err) {
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo && x <= hi))
        return dpb_error(err, "%s: \"%s\" is not a number in %g..%g", name, v, lo, hi);
    *out = x;
    return DPB_OK;
}

static int dpb_parse_ip(const char *name, const char *v, uint32_t *out, char *err) {
    struct in_addr a;
    if (inet_pton(AF_INET, v, &a) != 1) return dpb_error(err, "%s: \"%s\" is not an IPv4 address", name, v);
    *out = a.s_addr;
    return DPB_OK;
}

/* One "--name value" pair into `o`. */
static int dpb_parse_option(dpb_opts *o, const char *name, const char *v, char *err) {
    double x;
    if (strcmp(name, "--iface") == 0) o->iface = v;
    else if (strcmp(name, "--socket") == 0) o->socket = v;
    else if (strcmp(name, "--dst-mac") == 0) {
        if (dp_parse_mac(v, o->dst_mac) != 0) return dpb_error(err, "--dst-mac: \"%s\" is not a MAC address", v);
    } else if (strcmp(name, "--dst-ip") == 0) return dpb_parse_ip(name, v, &o->dst_ip, err);
    else if (strcmp(name, "--src-ip") == 0) return dpb_parse_ip(name, v, &o->src_ip, err);
    else if (strcmp(name, "--size") == 0) {
        if (dpb_parse_number(name, v, DPB_MIN_FRAME, DPB_MAX_FRAME, &x, err) != DPB_OK) return DPB_ERR;
        o->size = (size_t)x;
    } else if (strcmp(name, "--seconds") == 0) {
        return dpb_parse_number(name, v, 0.01, 86400, &o->seconds, err);
    } else if (strcmp(name, "--flows") == 0) {
        if (dpb_parse_number(name, v, 1, DPB_MAX_FLOWS, &x, err) != DPB_OK) return DPB_ERR;
        o->flows = (unsigned)x;
    } else if (strcmp(name, "--file-prefix") == 0) {
        if (!*v || strchr(v, '/') || strlen(v) >= sizeof(o->file_prefix))
            return dpb_error(err, "--file-prefix: \"%s\" is not a short name", v);
        snprintf(o->file_prefix, sizeof(o->file_prefix), "%s", v);
    } else return dpb_error(err, "unknown option \"%s\"", name);
    return DPB_OK;
}

/* Does the subcommand have what it needs? */
static int dpb_check(const dpb_opts *o, int have_dst_mac, char *err) {
    if (o->seconds <= 0) return dpb_error(err, "--seconds is required");
    if ((o->cmd == DPB_TX || o->cmd == DPB_RX) && !o->iface) return dpb_error(err, "--iface is required");
    if ((o->cmd == DPB_MEMIF_RX || o->cmd == DPB_MEMIF_TX) && !o->socket) return dpb_error(err, "--socket is required");
    if (o->cmd == DPB_TX && (!have_dst_mac || !o->dst_ip || !o->src_ip))
        return dpb_error(err, "tx needs --dst-mac, --dst-ip and --src-ip");
    if (o->iface && (strlen(o->iface) > 15 || strchr(o->iface, ',')))
        return dpb_error(err, "--iface: \"%s\" is not an interface name", o->iface);
    if (o->socket && strchr(o->socket, ',')) return dpb_error(err, "--socket: \"%s\" has a comma", o->socket);
    return DPB_OK;
}

/* argv (after the program name) into `o`. */
static int dpb_parse(int argc, char **argv, dpb_opts *o, char *err) {
    memset(o, 0, sizeof(*o));
    o->size = 64;
    o->flows = 1;
    snprintf(o->file_prefix, sizeof(o->file_prefix), "e3dpb-%ld", (long)getpid());
    if (argc < 2 || dpb_parse_cmd(argv[1], &o->cmd) != DPB_OK)
        return dpb_error(err, "a subcommand is needed: tx, rx, memif-rx or memif-tx");
    int have_dst_mac = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--adaptive") == 0) {
            o->adaptive = 1;
            continue;
        }
        if (i + 1 >= argc) return dpb_error(err, "%s needs a value", argv[i]);
        if (dpb_parse_option(o, argv[i], argv[i + 1], err) != DPB_OK) return DPB_ERR;
        have_dst_mac |= strcmp(argv[i], "--dst-mac") == 0;
        i++;
    }
    return dpb_check(o, have_dst_mac, err);
}

/* The vdev for the subcommand. Receivers of af_packet keep the PMD's defaults, as e3-nic's wire
 * ports do; the sender gets a deeper ring so that one sendto() kicks more frames. */
static void dpb_vdev(const dpb_opts *o, char *out, size_t n) {
    switch (o->cmd) {
    case DPB_TX: snprintf(out, n, "net_af_packet0,iface=%s,framecnt=2048", o->iface); break;
    case DPB_RX: snprintf(out, n, "net_af_packet0,iface=%s", o->iface); break;
    case DPB_MEMIF_RX: snprintf(out, n, "net_memif0,role=client,socket=%s,socket-abstract=no", o->socket); break;
    case DPB_MEMIF_TX: snprintf(out, n, "net_memif0,role=server,socket=%s,socket-abstract=no", o->socket); break;
    }
}

/* Start the EAL: the main lcore floating over every CPU, no hugepages, no PCI, one vdev. */
static int dpb_eal_init(const dpb_opts *o, char *err) {
    char lcores[32], vdev[PATH_MAX + 96], prefix[64];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(lcores, sizeof(lcores), ncpu > 1 ? "0@(0-%ld)" : "0@0", ncpu - 1);
    snprintf(prefix, sizeof(prefix), "%s", o->file_prefix);
    dpb_vdev(o, vdev, sizeof(vdev));
    char *argv[DPB_MAX_ARGS] = {"e3-dpbench", "--lcores", lcores, "--no-huge", "--no-pci", "-m", "128",
                                "--no-telemetry", "--log-level", "*:warning", "--file-prefix", prefix,
                                "--vdev", vdev, NULL};
    int argc = 14;
    if (rte_eal_init(argc, argv) < 0)
        return dpb_error(err, "DPDK EAL: %s (root? does the interface or socket exist here?)", rte_strerror(rte_errno));
    return DPB_OK;
}

/* Configure the port (one rx and one tx queue) and start it. */
static int dpb_port_start(dpb_res *r, char *err) {
    const char *name = r->o.cmd == DPB_TX || r->o.cmd == DPB_RX ? "net_af_packet0" : "net_memif0";
    if (rte_eth_dev_get_port_by_name(name, &r->port) != 0) return dpb_error(err, "port %s did not come up", name);
    struct rte_eth_conf conf = {0};
    uint16_t rxd = DPB_DESC, txd = DPB_DESC;
    int rc = rte_eth_dev_configure(r->port, 1, 1, &conf);
    if (rc == 0) rc = rte_eth_dev_adjust_nb_rx_tx_desc(r->port, &rxd, &txd);
    if (rc == 0) rc = rte_eth_rx_queue_setup(r->port, 0, rxd, rte_eth_dev_socket_id(r->port), NULL, r->mp);
    if (rc == 0) rc = rte_eth_tx_queue_setup(r->port, 0, txd, rte_eth_dev_socket_id(r->port), NULL);
    if (rc == 0) rc = rte_eth_dev_start(r->port);
    if (rc != 0) return dpb_error(err, "port %s: %s", name, rte_strerror(-rc));
    r->port_started = 1;
    rte_eth_promiscuous_enable(r->port); /* af_packet: every frame on the veth; memif: not supported, fine */
    return DPB_OK;
}

/* memif: wait until the peer is connected (or quit / DPB_LINK_WAIT_S). af_packet is up at once. */
static int dpb_wait_link(dpb_res *r, char *err) {
    uint64_t hz = rte_get_timer_hz(), end = rte_get_timer_cycles() + DPB_LINK_WAIT_S * hz;
    struct rte_eth_link link;
    while (!atomic_load(&dpb_quit)) {
        if (rte_eth_link_get_nowait(r->port, &link) == 0 && link.link_status == RTE_ETH_LINK_UP) return DPB_OK;
        if (rte_get_timer_cycles() > end) break;
        rte_delay_us_sleep(10 * 1000);
    }
    return dpb_error(err, "the link did not come up (no memif peer on %s?)", r->o.socket ? r->o.socket : r->o.iface);
}

/* memif server: after its window, stay until the client has left (or quit / DPB_LINK_WAIT_S). DPDK 22.11's
 * memif PMD frees the shared regions in its interrupt thread when the peer disconnects, with no fence against
 * a data-path thread inside rte_eth_rx_burst: a client still polling when its server leaves may read unmapped
 * memory (SIGSEGV, seen in 2 of 30 runs). The client leaving first is safe: it stops polling, then closes. */
static void dpb_wait_peer_gone(dpb_res *r) {
    uint64_t hz = rte_get_timer_hz(), end = rte_get_timer_cycles() + DPB_LINK_WAIT_S * hz;
    struct rte_eth_link link;
    while (!atomic_load(&dpb_quit) && rte_get_timer_cycles() < end) {
        if (rte_eth_link_get_nowait(r->port, &link) == 0 && link.link_status == RTE_ETH_LINK_DOWN) return;
        rte_delay_us_sleep(10 * 1000);
    }
}

/* One frame template per flow (source port DPB_SRC_PORT + k), written by dp_write_udp. */
static int dpb_frames(dpb_res *r, char *err) {
    static const uint8_t src_mac[6] = {0x02, 0xe3, 0xdb, 0x00, 0x00, 0x01};
    static const uint8_t memif_mac[6] = {0x02, 0xe3, 0xdb, 0x00, 0x00, 0x02};
    const dpb_opts *o = &r->o;
    r->frames = calloc(o->flows, sizeof(*r->frames));
    if (!r->frames) return dpb_error(err, "out of memory");
    const uint8_t *dst = o->cmd == DPB_TX ? o->dst_mac : memif_mac;
    uint32_t src_ip = o->src_ip ? o->src_ip : htonl(0x0a000001), dst_ip = o->dst_ip ? o->dst_ip : htonl(0x0a000002);
    for (unsigned k = 0; k < o->flows; k++) {
        dp_write_udp(r->frames[k], src_mac, dst, src_ip, dst_ip, (uint16_t)(DPB_SRC_PORT + k), DPB_DST_PORT,
                     o->size - DP_HDRS_LEN);
        memset(r->frames[k] + DP_HDRS_LEN, 0xe3, o->size - DP_HDRS_LEN);
    }
    return DPB_OK;
}

/* Send for --seconds: bursts of template copies; what the port refuses is freed and counted. */
static void dpb_tx_loop(dpb_res *r) {
    struct rte_mbuf *pkts[DPB_BURST];
    uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles();
    uint64_t end = start + (uint64_t)(r->o.seconds * (double)hz), now = start;
    unsigned flow = 0;
    while (!atomic_load_explicit(&dpb_quit, memory_order_relaxed) && (now = rte_get_timer_cycles()) < end) {
        if (rte_pktmbuf_alloc_bulk(r->mp, pkts, DPB_BURST) != 0) continue; /* the PMD still holds them */
        for (unsigned i = 0; i < DPB_BURST; i++) {
            memcpy(rte_pktmbuf_append(pkts[i], (uint16_t)r->o.size), r->frames[flow], r->o.size);
            flow = flow + 1 == r->o.flows ? 0 : flow + 1;
        }
        int faulted; /* its client left mid-burst: the frames are the PMD's (e3dp/memguard.h) */
        uint16_t n = dp_guarded_burst(rte_eth_tx_burst, r->port, pkts, DPB_BURST, &faulted);
        if (faulted) break;
        r->count += n;
        r->refused += DPB_BURST - n;
        if (n < DPB_BURST) rte_pktmbuf_free_bulk(pkts + n, DPB_BURST - n);
    }
    r->window_s = (double)(now - start) / (double)hz;
}

/* An IPv4/UDP frame? (what the senders send; a veth also carries the kernel's own chatter) */
static int dpb_is_udp(const struct rte_mbuf *m) {
    const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
    return rte_pktmbuf_data_len(m) >= DP_HDRS_LEN && f[12] == 0x08 && f[13] == 0x00 && f[DP_ETH_LEN + 9] == 17;
}

/* Receive and free until --seconds or a signal; an adaptive receiver naps after a short burst. */
static void dpb_rx_loop(dpb_res *r) {
    struct rte_mbuf *pkts[DPB_BURST];
    struct timespec nap = {0, DPB_SLEEP_US * 1000L};
    uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles();
    uint64_t end = start + (uint64_t)(r->o.seconds * (double)hz), now = start;
    while (!atomic_load_explicit(&dpb_quit, memory_order_relaxed) && (now = rte_get_timer_cycles()) < end) {
        int faulted; /* its server left mid-burst (e3dp/memguard.h) */
        uint16_t n = dp_guarded_burst(rte_eth_rx_burst, r->port, pkts, DPB_BURST, &faulted);
        if (faulted) break;
        uint16_t udp = 0;
        for (uint16_t i = 0; i < n; i++) udp += dpb_is_udp(pkts[i]);
        if (udp) {
            if (!r->count) r->first = now;
            r->last = now;
            r->count += udp;
        }
        r->other += n - udp;
        rte_pktmbuf_free_bulk(pkts, n);
        if (r->o.adaptive && n < DPB_BURST) nanosleep(&nap, NULL);
    }
    r->window_s = (double)(now - start) / (double)hz;
}

static void dpb_print(const dpb_res *r) {
    double hz = (double)rte_get_timer_hz();
    if (r->o.cmd == DPB_TX || r->o.cmd == DPB_MEMIF_TX) {
        printf("{\"sent\": %llu, \"refused\": %llu, \"seconds\": %.6f, \"pps\": %.1f, \"size\": %zu, \"flows\": %u}\n",
               (unsigned long long)r->count, (unsigned long long)r->refused, r->window_s,
               r->window_s > 0 ? (double)r->count / r->window_s : 0.0, r->o.size, r->o.flows);
        return;
    }
    double active = r->count > 1 ? (double)(r->last - r->first) / hz : 0.0;
    printf("{\"received\": %llu, \"other\": %llu, \"seconds\": %.6f, \"pps\": %.1f, \"window_s\": %.6f, "
           "\"adaptive\": %s}\n", (unsigned long long)r->count, (unsigned long long)r->other, active, active > 0 ? (double)r->count / active : 0.0, r->window_s,
           r->o.adaptive ? "true" : "false");
}

/* Mempool, port, link, frames, then the loop and its JSON. */
static int dpb_run(dpb_res *r, char *err) {
    r->mp = rte_pktmbuf_pool_create("dpb_mbufs", DPB_MBUFS, DPB_MBUF_CACHE, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                    (int)rte_socket_id());
    if (!r->mp) return dpb_error(err, "mempool: %s", rte_strerror(rte_errno));
    if (dpb_port_start(r, err) != DPB_OK || dpb_wait_link(r, err) != DPB_OK) return DPB_ERR;
    int sender = r->o.cmd == DPB_TX || r->o.cmd == DPB_MEMIF_TX;
    if (sender && dpb_frames(r, err) != DPB_OK) return DPB_ERR;
    fprintf(stderr, "e3-dpbench: ready\n");
    if (sender) dpb_tx_loop(r);
    else dpb_rx_loop(r);
    dpb_print(r);
    fflush(stdout);
    if (r->o.cmd == DPB_MEMIF_TX) dpb_wait_peer_gone(r);
    return DPB_OK;
}

int main(int argc, char **argv) {
    static dpb_res r;
    char err[DPB_ERRBUF_LEN] = "";
    int rc = 1, eal_up = 0;
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        dpb_usage(stdout);
        return 0;
    }
    if (dpb_parse(argc, argv, &r.o, err) != DPB_OK) {
        fprintf(stderr, "e3-dpbench: %s\n", err);
        dpb_usage(stderr);
        return 2;
    }
    struct sigaction sa = {.sa_handler = dpb_on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (dpb_eal_init(&r.o, err) != DPB_OK) goto err;
    eal_up = 1;
    if (dp_memguard_install(err) != DP_OK) goto err; /* a memif peer may leave mid-burst */
    if (dpb_run(&r, err) != DPB_OK) goto err;
    rc = 0;
err:
    if (r.port_started) {
        rte_eth_dev_stop(r.port);
        rte_eth_dev_close(r.port);
    }
    rte_mempool_free(r.mp);
    free(r.frames);
    if (eal_up) dp_eal_cleanup(); /* and its runtime directory */
    if (rc != 0) fprintf(stderr, "e3-dpbench: %s\n", err);
    return rc;
}
