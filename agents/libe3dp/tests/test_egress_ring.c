/* SPDX-License-Identifier: Apache-2.0 */
/*
 * egress_ring: an egress ring (DP_EGRESS_RING_FLAGS) that more plain threads send into than there are
 * CPUs keeps moving, as e3-nic's traffic manager and the host link need with 12 engine workers on a
 * 2-core machine. The whole process is pinned to ONE CPU, so the producers outnumber the cores on any
 * machine. PRODUCERS plain pthreads (no lcore, so no mempool cache: each goes to the pool's ring, as
 * the workers do) each take FRAMES_EACH frames from a dp_frame_pool_new pool and send them with
 * dp_ring_tx; the main thread (an lcore, as the traffic manager's loop is) drains the ring in
 * dp_poll_loop and frees the frames back to the pool. Every frame must arrive, once, in its sender's
 * order, within LIVENESS_S.
 *
 * LIVENESS_S is a liveness bound, not a speed target: with RTS rings this takes well under a second.
 * With the classic multi-producer rings a producer preempted between taking its slot and publishing
 * it leaves every later producer spinning in __rte_ring_update_tail for whole time slices until the
 * scheduler runs it again: on one CPU the same run did not finish in LIVENESS_S (5,000 to 90,000 of
 * the 240,000 frames arrived) with the classic egress ring, the classic pool ("ring_mp_mc"), or both
 * (docs/emulation.md, the RTS entry).
 * Then the cause, directly: the ring dp_ring_new makes with DP_EGRESS_RING_FLAGS has RTS producers
 * and a single consumer, and dp_frame_pool_new's pool uses the "ring_mt_rts" ops.
 * And every frame is back in the pool at the end. A pool of 8191 frames in its 8192-slot ring lost up
 * to three 384-frame cache flushes a run (7039 left): the allocating threads keep the pool ring's
 * consumer tail up to its head-tail distance (1023) behind, the ring then looks full to the lcore's
 * flush, and DPDK's mempool put ignores the failed enqueue. Pools are now sized DP_FRAME_POOL_MAX(slots)
 * (7168 for 8192), which dp_frame_pool_new enforces: one frame more is refused.
 */
#define _GNU_SOURCE /* CPU_SET, sched_setaffinity */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "check.h"
#include "e3dp/eal.h"
#include "e3dp/poll.h"

#define PRODUCERS 12        /* e3-nic's engine workers */
#define FRAMES_EACH 20000   /* frames each producer sends */
#define LIVENESS_S 60       /* every frame must have arrived by then */
#define RING_SLOTS 8192     /* NIC_EGRESS_SLOTS, DP_HOSTLINK_EGRESS_SLOTS */
#define POOL_SLOTS 8192     /* the ring of e3-nic's pool */
#define POOL_FRAMES DP_FRAME_POOL_MAX(POOL_SLOTS) /* e3-nic's NIC_MBUFS */
#define POOL_CACHE 256      /* e3-nic's NIC_MBUF_CACHE (only lcores have one) */

/* What each frame carries: who sent it, and its place in that sender's sequence. */
typedef struct stamp {
    uint32_t producer;
    uint32_t seq;
} stamp;

typedef struct run {
    struct rte_ring *ring;
    struct rte_mempool *mp;
    atomic_int quit;                     /* the consumer is done: producers stop retrying */
    unsigned long long deadline_ns;      /* the consumer gives up then */
    unsigned long received;              /* frames drained (the consumer's) */
    unsigned long out_of_order;          /* frames not next in their sender's sequence */
    uint32_t next_seq[PRODUCERS];        /* each sender's next expected seq */
} run;

typedef struct producer {
    run *run;
    uint32_t id;
    pthread_t thread;
} producer;

static unsigned long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* Send FRAMES_EACH stamped frames; a pool that is empty or a ring that is full (the consumer is
 * behind) is waited out, so every frame is sent unless the consumer gave up. */
static void *produce(void *arg) {
    producer *p = arg;
    run *r = p->run;
    for (uint32_t seq = 0; seq < FRAMES_EACH; seq++) {
        struct rte_mbuf *m;
        while (!(m = rte_pktmbuf_alloc(r->mp))) {
            if (atomic_load(&r->quit)) return NULL;
            sched_yield();
        }
        stamp *s = (stamp *)rte_pktmbuf_append(m, sizeof(*s));
        CHECK(s);
        *s = (stamp){p->id, seq};
        while (dp_ring_tx(r->ring, m, 0) != DP_OK) {
            if (atomic_load(&r->quit)) {
                rte_pktmbuf_free(m);
                return NULL;
            }
            sched_yield();
        }
    }
    return NULL;
}

/* One pass of the consumer's loop: drain a burst, check each frame's stamp, free it. */
static size_t drain(void *arg) {
    run *r = arg;
    struct rte_mbuf *pkts[DP_BURST];
    unsigned n = rte_ring_sc_dequeue_burst(r->ring, (void **)pkts, DP_BURST, NULL);
    for (unsigned i = 0; i < n; i++) {
        const stamp *s = rte_pktmbuf_mtod(pkts[i], const stamp *);
        if (s->producer >= PRODUCERS || s->seq != r->next_seq[s->producer]) r->out_of_order++;
        else r->next_seq[s->producer]++;
        rte_pktmbuf_free(pkts[i]);
    }
    r->received += n;
    if (r->received >= (unsigned long)PRODUCERS * FRAMES_EACH || now_ns() > r->deadline_ns) atomic_store(&r->quit, 1);
    return n;
}

/* Pin this thread, and so every thread it starts, to the first CPU it may run on. */
static void pin_to_one_cpu(void) {
    cpu_set_t allowed, one;
    CHECK(sched_getaffinity(0, sizeof(allowed), &allowed) == 0);
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &allowed)) cpu++;
    CHECK(cpu < CPU_SETSIZE);
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);
}

int main(void) {
    char prefix[64], err[DP_ERRBUF_LEN];
    snprintf(prefix, sizeof(prefix), "e3dp-test-egress-ring-%d", (int)getpid());
    char *eal[] = {"test_egress_ring", "--no-huge", "--no-pci", "-m", "128", "--no-telemetry", "-l", "0",
                   "--log-level", "*:error", "--file-prefix", prefix, NULL};
    CHECK(rte_eal_init(12, eal) >= 0);
    pin_to_one_cpu();

    static run r;
    /* One frame more than its ring holds safely is refused, with the reason and the most it may have. */
    CHECK(!dp_frame_pool_new("test_too_many", POOL_FRAMES + 1, POOL_CACHE, err));
    CHECK(strstr(err, "would lose frames") && strstr(err, "at most 7168"));
    r.mp = dp_frame_pool_new("test_frames", POOL_FRAMES, POOL_CACHE, err);
    CHECK(r.mp);
    r.ring = dp_ring_new("test_eg", &r, RING_SLOTS, DP_EGRESS_RING_FLAGS, err);
    CHECK(r.ring);

    /* The user-visible property: every frame gets through. */
    producer producers[PRODUCERS];
    unsigned long long start = now_ns();
    r.deadline_ns = start + LIVENESS_S * 1000000000ull;
    for (uint32_t i = 0; i < PRODUCERS; i++) {
        producers[i] = (producer){.run = &r, .id = i};
        CHECK(pthread_create(&producers[i].thread, NULL, produce, &producers[i]) == 0);
    }
    dp_poll_loop(drain, &r, &r.quit, 0);
    double secs = (double)(now_ns() - start) / 1e9;
    fprintf(stderr, "%lu of %d frames from %d producers on one CPU in %.2f s (bound %d s)\n", r.received,
            PRODUCERS * FRAMES_EACH, PRODUCERS, secs, LIVENESS_S);
    /* Before the joins: producers caught in a convoy would hold them up long past the bound. */
    CHECK_EQ_INT(r.received, PRODUCERS * FRAMES_EACH);
    CHECK_EQ_INT(r.out_of_order, 0);
    for (int i = 0; i < PRODUCERS; i++) CHECK_EQ_INT(r.next_seq[i], FRAMES_EACH);
    for (int i = 0; i < PRODUCERS; i++) CHECK(pthread_join(producers[i].thread, NULL) == 0);

    /* The cause, directly: RTS producers on the egress ring, RTS on the pool's ring. */
    CHECK_EQ_INT(rte_ring_get_prod_sync_type(r.ring), RTE_RING_SYNC_MT_RTS);
    CHECK_EQ_INT(rte_ring_get_cons_sync_type(r.ring), RTE_RING_SYNC_ST);
    CHECK(strcmp(rte_mempool_get_ops(r.mp->ops_index)->name, "ring_mt_rts") == 0);

    /* Every frame back in the pool (its ring, and the lcore's cache): none lost on the way. */
    dp_ring_drain_free(r.ring);
    CHECK_EQ_INT(rte_mempool_avail_count(r.mp), POOL_FRAMES);
    rte_mempool_free(r.mp);
    dp_eal_cleanup();
    return 0;
}
