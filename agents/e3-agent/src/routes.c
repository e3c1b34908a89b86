/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routes: a sorted array searched by bsearch, swapped whole under a write lock (tables are
 * small and replaced rarely; lookups happen per forwarded request).
 */
#include "routes.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e3svc/errbuf.h"

typedef struct rt_entry {
    char id[E3RPC_ID_LEN];   /* instance id */
    char addr[RT_ADDR_LEN];  /* IPv4, dotted */
    uint16_t port;           /* UDP port, host order */
} rt_entry;

struct rt_table {
    pthread_rwlock_t lock; /* guards entries and n */
    rt_entry *entries;     /* sorted by id */
    size_t n;              /* entries used */
};

E3_DEFINE_SET_ERROR(rt_set_error, RT_ERRBUF_LEN, RT_ERR)

static int rt_cmp(const void *a, const void *b) {
    return strcmp(((const rt_entry *)a)->id, ((const rt_entry *)b)->id);
}

rt_table *rt_new(void) {
    rt_table *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    if (pthread_rwlock_init(&t->lock, NULL) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

void rt_free(rt_table *t) {
    if (!t) return;
    pthread_rwlock_destroy(&t->lock);
    free(t->entries);
    free(t);
}

int rt_replace(rt_table *t, const e3rpc_route *routes, size_t n, char *err) {
    rt_entry *fresh = n ? calloc(n, sizeof(*fresh)) : NULL;
    if (n && !fresh) return rt_set_error(err, "routes: out of memory");
    for (size_t i = 0; i < n; i++) {
        const e3rpc_route *r = &routes[i];
        struct in_addr a;
        size_t idlen = r->instance_id ? strlen(r->instance_id) : 0;
        if (idlen == 0 || idlen >= E3RPC_ID_LEN) {
            rt_set_error(err, "routes: route %zu: instance id must be 1-%d characters", i, E3RPC_ID_LEN - 1);
            goto err;
        }
        if (!r->address || inet_pton(AF_INET, r->address, &a) != 1) {
            rt_set_error(err, "routes: route to %s: \"%s\" is not an IPv4 address", r->instance_id,
                         r->address ? r->address : "");
            goto err;
        }
        if (r->port == 0 || r->port > 65535) {
            rt_set_error(err, "routes: route to %s: port %u is not in 1..65535", r->instance_id, r->port);
            goto err;
        }
        snprintf(fresh[i].id, sizeof(fresh[i].id), "%s", r->instance_id);
        inet_ntop(AF_INET, &a, fresh[i].addr, sizeof(fresh[i].addr));
        fresh[i].port = (uint16_t)r->port;
    }
    if (n) qsort(fresh, n, sizeof(*fresh), rt_cmp);
    for (size_t i = 1; i < n; i++)
        if (strcmp(fresh[i - 1].id, fresh[i].id) == 0) {
            rt_set_error(err, "routes: instance %s has two routes", fresh[i].id);
            goto err;
        }
    pthread_rwlock_wrlock(&t->lock);
    rt_entry *old = t->entries;
    t->entries = fresh;
    t->n = n;
    pthread_rwlock_unlock(&t->lock);
    free(old);
    return RT_OK;
err:
    free(fresh);
    return RT_ERR;
}

int rt_lookup(rt_table *t, const char *instance_id, char *addr, uint16_t *port) {
    rt_entry key;
    if (!instance_id || strlen(instance_id) >= sizeof(key.id)) return RT_ERR;
    snprintf(key.id, sizeof(key.id), "%s", instance_id);
    int rc = RT_ERR;
    pthread_rwlock_rdlock(&t->lock);
    const rt_entry *e = t->n ? bsearch(&key, t->entries, t->n, sizeof(key), rt_cmp) : NULL;
    if (e) {
        memcpy(addr, e->addr, RT_ADDR_LEN);
        *port = e->port;
        rc = RT_OK;
    }
    pthread_rwlock_unlock(&t->lock);
    return rc;
}

size_t rt_count(rt_table *t) {
    pthread_rwlock_rdlock(&t->lock);
    size_t n = t->n;
    pthread_rwlock_unlock(&t->lock);
    return n;
}
