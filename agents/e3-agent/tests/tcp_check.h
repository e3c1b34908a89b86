/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper for the state transfer's TCP side: a port nobody listens on right now. */
#ifndef E3AGENT_TESTS_TCP_CHECK_H
#define E3AGENT_TESTS_TCP_CHECK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"

/* A TCP port nobody listens on right now on 127.0.0.1 (bind to 0, note, release). */
static inline uint16_t free_tcp_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof(a);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&a, &l) == 0);
    close(fd);
    return ntohs(a.sin_port);
}

#endif
