/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memguard: a burst that touches unmapped memory while its port's link is down (a memif peer gone
 * mid-burst) comes back as faulted and the process lives on; the same fault on a port whose link is up,
 * or outside any guarded burst, still crashes the process with SIGSEGV (a guarded one saying so first). The "memif" here is a net_ring
 * port whose link the test sets down, and a burst function that reads an unmapped page, as DPDK's memif
 * PMD does when its interrupt thread has unmapped the shared memory.
 */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include "check.h"
#include "e3dp/dp.h"
#include "e3dp/memguard.h"
#include "ring_port.h"

static volatile uint8_t *g_unmapped;

/* A burst that reads the shared memory after it was unmapped. */
static uint16_t burst_into_unmapped(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n) {
    (void)port, (void)queue, (void)pkts;
    return (uint16_t)(g_unmapped[0] + n);
}

/* The signal `fn(port)` ended a forked child with, or 0 if it exited; what it wrote on stderr in `out`. */
static int signal_of_child(void (*fn)(uint16_t), uint16_t port, char *out, size_t out_len) {
    int pipe_fds[2];
    CHECK(pipe(pipe_fds) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0}); /* the crash is expected: no core file */
        dup2(pipe_fds[1], STDERR_FILENO);
        fn(port);
        _exit(0);
    }
    close(pipe_fds[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < out_len && (n = read(pipe_fds[0], out + got, out_len - 1 - got)) > 0) got += (size_t)n;
    out[got] = 0;
    close(pipe_fds[0]);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void guarded_fault(uint16_t port) {
    int faulted;
    dp_guarded_burst(burst_into_unmapped, port, NULL, 8, &faulted);
}

static void unguarded_fault(uint16_t port) {
    burst_into_unmapped(port, 0, NULL, 8);
}

int main(void) {
    char prefix[64], err[DP_ERRBUF_LEN];
    snprintf(prefix, sizeof(prefix), "e3dp-test-memguard-%d", (int)getpid());
    char *eal[] = {"test_memguard", "--no-huge", "--no-pci", "-m", "64", "--no-telemetry", "-l", "0",
                   "--log-level", "*:error", "--file-prefix", prefix, NULL};
    CHECK(rte_eal_init(12, eal) >= 0);
    struct rte_mempool *mp = rte_pktmbuf_pool_create("test_mbufs", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                                     SOCKET_ID_ANY);
    CHECK(mp);
    ring_port link;
    ring_port_make(&link, "memif0", mp);
    long page = sysconf(_SC_PAGESIZE);
    void *shared = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(shared != MAP_FAILED);
    CHECK_EQ_INT(munmap(shared, (size_t)page), 0);
    g_unmapped = shared;
    CHECK_EQ_INT(dp_memguard_install(err), DP_OK);

    /* A healthy burst under the guard: what the port gives. */
    ring_port_inject(&link, mp, (const uint8_t *)"frame", 5);
    struct rte_mbuf *pkts[4];
    int faulted = -1;
    CHECK_EQ_INT(dp_guarded_burst(rte_eth_rx_burst, link.id, pkts, 4, &faulted), 1);
    CHECK_EQ_INT(faulted, 0);
    rte_pktmbuf_free(pkts[0]);

    /* Link up: a fault is a real crash, guarded or not; a guarded one names the address it touched. */
    char said[512], expected[128];
    CHECK_EQ_INT(signal_of_child(guarded_fault, link.id, said, sizeof(said)), SIGSEGV);
    snprintf(expected, sizeof(expected), "memguard: SIGSEGV at address %p in a burst on port %u whose link is up",
             (void *)g_unmapped, (unsigned)link.id);
    CHECK(strstr(said, expected) != NULL);
    CHECK_EQ_INT(signal_of_child(unguarded_fault, link.id, said, sizeof(said)), SIGSEGV);

    /* The peer left (link down): the guarded burst is abandoned, again and again, and the process lives. */
    CHECK_EQ_INT(rte_eth_dev_set_link_down(link.id), 0);
    for (int i = 0; i < 3; i++) {
        faulted = -1;
        CHECK_EQ_INT(dp_guarded_burst(burst_into_unmapped, link.id, pkts, 4, &faulted), 0);
        CHECK_EQ_INT(faulted, 1);
    }
    /* ... but not a fault outside a guarded burst. */
    CHECK_EQ_INT(signal_of_child(unguarded_fault, link.id, said, sizeof(said)), SIGSEGV);
    /* Back up: bursts run as before. */
    CHECK_EQ_INT(rte_eth_dev_set_link_up(link.id), 0);
    ring_port_inject(&link, mp, (const uint8_t *)"again", 5);
    CHECK_EQ_INT(dp_guarded_burst(rte_eth_rx_burst, link.id, pkts, 4, &faulted), 1);
    CHECK_EQ_INT(faulted, 0);
    rte_pktmbuf_free(pkts[0]);
    fprintf(stderr, "memguard: faults on a downed link survived, others crash\n");
    rte_eal_cleanup();
    return 0;
}
