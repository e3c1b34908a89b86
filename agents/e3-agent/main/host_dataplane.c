/* SPDX-License-Identifier: Apache-2.0 */
/* host_dataplane: see host_dataplane.h. */
#include "host_dataplane.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "alog.h"
#include "e3dp/eal.h"
#include "e3dp/hostlink.h"
#include "e3dp/memguard.h"
#include "e3dp/poll.h"

#define HDP_MBUFS DP_FRAME_POOL_MAX(8192) /* frame buffers in the pool (7168) */
#define HDP_MBUF_CACHE 256      /* per-lcore cache */
#define HDP_LCORE 1             /* the host link loop's lcore */

_Static_assert(CLI_MAX_MEMIF <= DP_HOSTLINK_MAX, "one hostlink port per --memif");
_Static_assert(CLI_ERRBUF_LEN >= DP_ERRBUF_LEN, "libe3dp errors fit the caller's buffer");

struct host_dataplane {
    dp_eal_args eal;                 /* the EAL's argv (kept alive while it runs) */
    int eal_up;                      /* 1 after rte_eal_init */
    struct rte_mempool *mp;          /* frame buffers */
    uint16_t ports[CLI_MAX_MEMIF];   /* started links */
    size_t n_ports;                  /* entries used */
    dp_hostlink *hl;                 /* the loop */
    int launched;                    /* 1 while it runs on HDP_LCORE */
};

static int hdp_eal_start(host_dataplane *d, const cli_opts *o, char *err) {
    dp_eal_config c = {.program = "e3-agent", .ncpu = sysconf(_SC_NPROCESSORS_ONLN), .file_prefix = o->file_prefix,
                       .prefix_stem = "e3-agent"};
    if (dp_eal_args_init(&d->eal, &c, err) != DP_OK) return DP_ERR;
    for (size_t k = 0; k < o->n_memif; k++)
        if (dp_eal_args_vdev(&d->eal, err, "net_memif%zu,role=client,socket=%s,socket-abstract=no", k, o->memifs[k]) !=
            DP_OK)
            return DP_ERR;
    if (dp_eal_args_words(&d->eal, o->eal_extra, err) != DP_OK) return DP_ERR;
    if (rte_eal_init(d->eal.argc, d->eal.argv) < 0)
        return dp_set_error(err, "DPDK EAL: %s (are you root?)", rte_strerror(rte_errno));
    d->eal_up = 1;
    return dp_memguard_install(err); /* survives a NIC leaving mid-burst */
}

static int hdp_links_start(host_dataplane *d, const cli_opts *o, dp_hostlink_config *hc, char *err) {
    char name[32], why[DP_ERRBUF_LEN];
    for (size_t k = 0; k < o->n_memif; k++) {
        snprintf(name, sizeof(name), "net_memif%zu", k);
        uint16_t port;
        if (rte_eth_dev_get_port_by_name(name, &port) != 0)
            return dp_set_error(err, "host link %s (%s) did not come up", name, o->memifs[k]);
        if (dp_port_start(port, d->mp, why) != DP_OK)
            return dp_set_error(err, "cannot connect the host link %s: is e3-nic running? (%s)", o->memifs[k], why);
        d->ports[d->n_ports++] = port;
        hc->ports[hc->n_ports++] = port;
    }
    return DP_OK;
}

host_dataplane *host_dataplane_start(const cli_opts *o, char *err) {
    host_dataplane *d = calloc(1, sizeof(*d));
    if (!d) {
        dp_set_error(err, "out of memory");
        return NULL;
    }
    dp_hostlink_config hc = {.ip = o->address, .busy_poll = o->busy_poll};
    if (hdp_eal_start(d, o, err) != DP_OK) goto err;
    if (!(d->mp = dp_frame_pool_new("e3agent_mbufs", HDP_MBUFS, HDP_MBUF_CACHE, err))) goto err;
    if (hdp_links_start(d, o, &hc, err) != DP_OK) goto err;
    d->hl = dp_hostlink_new(&hc, d->mp, err);
    if (!d->hl) goto err;
    if (rte_eal_remote_launch(dp_hostlink_run, d->hl, HDP_LCORE) != 0) {
        dp_set_error(err, "cannot launch the host link loop on lcore %d", HDP_LCORE);
        goto err;
    }
    d->launched = 1;
    alog(ALOG_INFO, "host link: memif to %zu SmartNIC(s) (EMULATED PCIe path: DPDK net_memif, no LiquidIO "
         "hardware), host address %s, %s polling", o->n_memif, o->address, o->busy_poll ? "busy" : "adaptive");
    return d;
err:
    host_dataplane_stop(d);
    return NULL;
}

chan_net *host_dataplane_net(host_dataplane *d) {
    return dp_hostlink_net(d->hl);
}

void host_dataplane_stop(host_dataplane *d) {
    if (!d) return;
    if (d->launched) {
        dp_hostlink_stop(d->hl);
        rte_eal_mp_wait_lcore();
    }
    for (size_t k = 0; k < d->n_ports; k++) {
        rte_eth_dev_stop(d->ports[k]);
        rte_eth_dev_close(d->ports[k]);
    }
    dp_hostlink_free(d->hl);
    rte_mempool_free(d->mp);
    if (d->eal_up) dp_eal_cleanup();
    free(d);
}
