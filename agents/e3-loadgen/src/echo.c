/* SPDX-License-Identifier: Apache-2.0 */
/* echo: a one-thread UDP echo of request frames (see echo.h). */
#include "echo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loadgen.h"

#define ECHO_POLL_MS 50 /* how often the thread looks at the stop flag */

struct lg_echo {
    int fd;                  /* bound UDP socket */
    uint16_t port;           /* host byte order */
    unsigned error_every;    /* every n-th request gets an error frame (0: never) */
    atomic_int stop;         /* set by lg_echo_stop */
    atomic_uint_fast64_t answered; /* replies sent */
    pthread_t thread;
};

static void *echo_main(void *arg) {
    lg_echo *e = arg;
    uint8_t *buf = malloc(LG_HDR_LEN + LG_MAX_PAYLOAD);
    static const char errtext[] = "echo: error";
    uint64_t seen = 0;
    while (buf && !atomic_load(&e->stop)) {
        struct pollfd p = {.fd = e->fd, .events = POLLIN};
        if (poll(&p, 1, ECHO_POLL_MS) <= 0) continue;
        struct sockaddr_storage from;
        socklen_t fl = sizeof(from);
        ssize_t n = recvfrom(e->fd, buf, LG_HDR_LEN + LG_MAX_PAYLOAD, 0, (struct sockaddr *)&from, &fl);
        lg_hdr h;
        if (n < 0 || lg_hdr_decode(buf, (size_t)n, &h) != LG_OK || h.type != LG_TYPE_REQUEST) continue;
        seen++;
        h.type = LG_TYPE_REPLY;
        h.status = LG_STATUS_OK;
        size_t len = (size_t)n;
        if (e->error_every && seen % e->error_every == 0) {
            h.status = LG_STATUS_ERROR;
            memcpy(buf + LG_HDR_LEN, errtext, sizeof(errtext) - 1);
            len = LG_HDR_LEN + sizeof(errtext) - 1;
        }
        lg_hdr_encode(&h, buf);
        if (sendto(e->fd, buf, len, 0, (struct sockaddr *)&from, fl) == (ssize_t)len) atomic_fetch_add(&e->answered, 1);
    }
    free(buf);
    return NULL;
}

lg_echo *lg_echo_start(const char *ip, uint16_t port, unsigned error_every, char *err) {
    lg_echo *e = calloc(1, sizeof(*e));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    if (!e) {
        snprintf(err, LG_ERRBUF_LEN, "out of memory");
        return NULL;
    }
    e->fd = -1;
    e->error_every = error_every;
    if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
        snprintf(err, LG_ERRBUF_LEN, "echo: \"%s\" is not an IPv4 address", ip);
        goto err;
    }
    e->fd = socket(AF_INET, SOCK_DGRAM, 0);
    socklen_t al = sizeof(a);
    if (e->fd < 0 || bind(e->fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        getsockname(e->fd, (struct sockaddr *)&a, &al) < 0) {
        snprintf(err, LG_ERRBUF_LEN, "echo: %s:%u: %s", ip, port, strerror(errno));
        goto err;
    }
    int buf = 4 << 20; /* best effort, as the load generator's own socket */
    setsockopt(e->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
    e->port = ntohs(a.sin_port);
    if (pthread_create(&e->thread, NULL, echo_main, e) != 0) {
        snprintf(err, LG_ERRBUF_LEN, "echo: cannot start its thread");
        goto err;
    }
    return e;
err:
    if (e->fd >= 0) close(e->fd);
    free(e);
    return NULL;
}

uint16_t lg_echo_port(const lg_echo *e) { return e->port; }

uint64_t lg_echo_answered(lg_echo *e) { return atomic_load(&e->answered); }

void lg_echo_stop(lg_echo *e) {
    if (!e) return;
    atomic_store(&e->stop, 1);
    pthread_join(e->thread, NULL);
    close(e->fd);
    free(e);
}
