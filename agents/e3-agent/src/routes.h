/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes: the node's routing table for outgoing requests, instance id (the controller's UUID)
 * -> IPv4 address and UDP port. The controller replaces it whole (SetRoutes); request
 * forwarding reads it from engine workers. A read-write lock keeps readers parallel.
 */
#ifndef E3AGENT_ROUTES_H
#define E3AGENT_ROUTES_H

#include <stddef.h>
#include <stdint.h>

#include "e3rpc.h"

#define RT_OK 0
#define RT_ERR -1
#define RT_ERRBUF_LEN 256  /* size of the error buffers callers pass */
#define RT_ADDR_LEN 16     /* "255.255.255.255" + NUL */

typedef struct rt_table rt_table; /* opaque */

/* Write a formatted reason into `err` (RT_ERRBUF_LEN bytes, may be NULL); returns RT_ERR. */
int rt_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An empty table, or NULL when memory runs out. */
rt_table *rt_new(void);

/* Free the table (NULL is fine). */
void rt_free(rt_table *t);

/* Replace the whole table with `n` routes. Validates all of them first (id 1-64 chars, IPv4
 * address, port 1..65535, no id twice) and changes nothing if one is bad. Any thread. */
int rt_replace(rt_table *t, const e3rpc_route *routes, size_t n, char *err);

/* Where instance `instance_id` is: fills `addr` (RT_ADDR_LEN bytes) and `port`. Returns RT_OK,
 * or RT_ERR when the table has no route to it. Any thread. */
int rt_lookup(rt_table *t, const char *instance_id, char *addr, uint16_t *port);

/* Number of routes. */
size_t rt_count(rt_table *t);

#endif
