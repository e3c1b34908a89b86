/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mpsc: Vyukov's bounded ring specialised for one consumer. Slot i starts with seq = i. A
 * producer at position pos may write slot pos & mask when seq == pos; it then stores
 * seq = pos + 1. The consumer at position pos may read the slot when seq == pos + 1; it then
 * stores seq = pos + capacity, freeing the slot for the producer one lap later.
 */
#include "mpsc.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define MPSC_CACHELINE 64 /* bytes */

typedef struct mpsc_slot {
    atomic_size_t seq; /* position this slot is ready for (see file comment) */
    void *item;        /* the payload; valid once seq == pos + 1 */
} mpsc_slot;

struct mpsc_queue {
    alignas(MPSC_CACHELINE) atomic_size_t head; /* next position producers claim */
    alignas(MPSC_CACHELINE) atomic_size_t tail; /* next position the consumer reads */
    alignas(MPSC_CACHELINE) size_t mask;        /* capacity - 1 */
    mpsc_slot *slots;                           /* capacity slots */
};

mpsc_queue *mpsc_new(size_t capacity) {
    if (capacity == 0 || capacity > ((size_t)1 << 30)) return NULL;
    size_t cap = 2;
    while (cap < capacity) cap <<= 1;
    mpsc_queue *q = aligned_alloc(MPSC_CACHELINE, sizeof(*q));
    if (!q) goto err;
    q->slots = calloc(cap, sizeof(*q->slots));
    if (!q->slots) goto err;
    q->mask = cap - 1;
    for (size_t i = 0; i < cap; i++) atomic_init(&q->slots[i].seq, i);
    atomic_init(&q->head, 0);
    atomic_init(&q->tail, 0);
    return q;
err:
    free(q);
    return NULL;
}

void mpsc_free(mpsc_queue *q) {
    if (!q) return;
    free(q->slots);
    free(q);
}

int mpsc_push(mpsc_queue *q, void *item) {
    size_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    for (;;) {
        mpsc_slot *s = &q->slots[pos & q->mask];
        size_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)pos;
        if (diff == 0) {
            /* the slot is free for this lap: try to claim the position */
            if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                s->item = item;
                atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
                return MPSC_OK;
            }
            /* CAS failure reloaded pos */
        } else if (diff < 0) {
            return MPSC_ERR; /* the consumer has not freed this slot yet: full */
        } else {
            pos = atomic_load_explicit(&q->head, memory_order_relaxed); /* another producer won */
        }
    }
}

void *mpsc_pop(mpsc_queue *q) {
    size_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    mpsc_slot *s = &q->slots[pos & q->mask];
    size_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    if (seq != pos + 1) return NULL; /* empty, or claimed but not yet published */
    void *item = s->item;
    atomic_store_explicit(&q->tail, pos + 1, memory_order_relaxed);
    atomic_store_explicit(&s->seq, pos + q->mask + 1, memory_order_release);
    return item;
}

size_t mpsc_len(const mpsc_queue *q) {
    size_t tail = atomic_load_explicit(&((mpsc_queue *)q)->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&((mpsc_queue *)q)->head, memory_order_relaxed);
    return head > tail ? head - tail : 0;
}

size_t mpsc_capacity(const mpsc_queue *q) {
    return q->mask + 1;
}
