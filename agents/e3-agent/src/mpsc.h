/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mpsc: a bounded multi-producer, single-consumer FIFO of pointers (paper §4: "per-core,
 * multi-producer, single-consumer FIFO queues"). A lock-free ring with one sequence number per
 * slot (Vyukov's bounded queue): producers claim a position with a CAS and publish the slot by
 * storing its sequence; the single consumer needs no CAS. Items from one producer leave in the
 * order that producer pushed them. A full queue refuses the push (backpressure), it never blocks.
 */
#ifndef E3AGENT_MPSC_H
#define E3AGENT_MPSC_H

#include <stddef.h>

#define MPSC_OK 0
#define MPSC_ERR -1

typedef struct mpsc_queue mpsc_queue; /* opaque */

/* Create a queue holding at least `capacity` items (rounded up to a power of two, >= 2).
 * Returns NULL when memory runs out or capacity is 0 or absurdly large. */
mpsc_queue *mpsc_new(size_t capacity);

/* Free `q` (NULL is fine). Items still queued are not freed: drain first. No thread may use
 * `q` concurrently. */
void mpsc_free(mpsc_queue *q);

/* Append `item` (must not be NULL). Any thread. Returns MPSC_OK, or MPSC_ERR if the queue is
 * full (nothing changed). */
int mpsc_push(mpsc_queue *q, void *item);

/* Remove and return the oldest published item, or NULL when none is ready. Only the one
 * consumer thread may call this. NULL may also mean the oldest slot is claimed by a producer that
 * has not published yet; callers that know an item is coming simply retry. */
void *mpsc_pop(mpsc_queue *q);

/* Approximate number of queued items (exact when no push or pop runs concurrently). Any thread. */
size_t mpsc_len(const mpsc_queue *q);

/* The queue's capacity in items. */
size_t mpsc_capacity(const mpsc_queue *q);

#endif
