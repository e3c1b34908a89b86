/* SPDX-License-Identifier: Apache-2.0 */
/* A loopback UDP socket that never reads: datagrams sent to it are accepted and nothing answers.
 * Header-only, for the e3-loadgen tests. */
#ifndef E3LOADGEN_SILENT_PORT_H
#define E3LOADGEN_SILENT_PORT_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "check.h"

/* Bind one on an ephemeral port; returns the socket (close it when done) and its port in `*port`. */
static inline int silent_port_open(uint16_t *port) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&a, &al) == 0);
    *port = ntohs(a.sin_port);
    return fd;
}

#endif
