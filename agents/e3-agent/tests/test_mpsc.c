/* SPDX-License-Identifier: Apache-2.0 */
/* mpsc: N producers x M items, one consumer: every item exactly once, per-producer order kept;
 * a full queue refuses pushes. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include "check.h"
#include "mpsc.h"

#define N_PRODUCERS 4
#define N_ITEMS 200000 /* per producer */

typedef struct producer {
    mpsc_queue *q;
    uintptr_t id;
    unsigned long full; /* pushes refused, retried */
} producer;

/* item encoding: producer id in the top bits, sequence + 1 below (never NULL) */
static void *producer_main(void *arg) {
    producer *p = arg;
    for (uintptr_t i = 0; i < N_ITEMS; i++) {
        void *item = (void *)((p->id << 32) | (i + 1));
        while (mpsc_push(p->q, item) != MPSC_OK) {
            p->full++;
            sched_yield();
        }
    }
    return NULL;
}

int main(void) {
    /* backpressure: a 4-slot queue takes 4 items then refuses */
    mpsc_queue *small = mpsc_new(3);
    CHECK(small);
    CHECK_EQ_INT(mpsc_capacity(small), 4);
    CHECK(mpsc_pop(small) == NULL);
    for (uintptr_t i = 1; i <= 4; i++) CHECK_EQ_INT(mpsc_push(small, (void *)i), MPSC_OK);
    CHECK_EQ_INT(mpsc_push(small, (void *)5), MPSC_ERR);
    CHECK_EQ_INT(mpsc_len(small), 4);
    CHECK(mpsc_pop(small) == (void *)1);
    CHECK_EQ_INT(mpsc_push(small, (void *)5), MPSC_OK);
    for (uintptr_t i = 2; i <= 5; i++) CHECK(mpsc_pop(small) == (void *)i);
    CHECK(mpsc_pop(small) == NULL);
    mpsc_free(small);
    CHECK(mpsc_new(0) == NULL);

    mpsc_queue *q = mpsc_new(1024);
    CHECK(q);
    producer prods[N_PRODUCERS];
    pthread_t th[N_PRODUCERS];
    for (int i = 0; i < N_PRODUCERS; i++) {
        prods[i] = (producer){.q = q, .id = (uintptr_t)i};
        CHECK(pthread_create(&th[i], NULL, producer_main, &prods[i]) == 0);
    }
    uintptr_t next[N_PRODUCERS] = {0}; /* next expected sequence per producer */
    unsigned long got = 0;
    while (got < (unsigned long)N_PRODUCERS * N_ITEMS) {
        void *item = mpsc_pop(q);
        if (!item) continue;
        uintptr_t v = (uintptr_t)item, id = v >> 32, seq = (v & 0xffffffffu) - 1;
        CHECK(id < N_PRODUCERS);
        CHECK_EQ_INT(seq, next[id]); /* exactly once, in order */
        next[id]++;
        got++;
    }
    for (int i = 0; i < N_PRODUCERS; i++) {
        CHECK(pthread_join(th[i], NULL) == 0);
        CHECK_EQ_INT(next[i], N_ITEMS);
    }
    CHECK(mpsc_pop(q) == NULL);
    CHECK_EQ_INT(mpsc_len(q), 0);
    mpsc_free(q);
    return 0;
}
