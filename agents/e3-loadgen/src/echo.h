/* SPDX-License-Identifier: Apache-2.0 */
/*
 * echo: a UDP service that answers every request frame (loadgen.h framing) with a reply frame of
 * the same request id and the same payload, from one thread. The known target for the tests and
 * for hand runs (`e3-loadgen-echo`): it measures the load generator and the loopback path, with
 * no service work in between.
 */
#ifndef E3LOADGEN_ECHO_H
#define E3LOADGEN_ECHO_H

#include <stdint.h>

typedef struct lg_echo lg_echo; /* opaque: one socket + one thread */

/* Bind `ip`:`port` (port 0: any free one) and start answering. Every `error_every`-th request
 * (0: none) is answered with an error frame (status 1, payload "echo: error"), for tests.
 * NULL with `err` (LG_ERRBUF_LEN bytes) on failure. */
lg_echo *lg_echo_start(const char *ip, uint16_t port, unsigned error_every, char *err);

/* The bound port, host byte order. */
uint16_t lg_echo_port(const lg_echo *e);

/* Requests answered so far. Any thread. */
uint64_t lg_echo_answered(lg_echo *e);

/* Stop the thread (within ~50 ms), close the socket. NULL is fine. */
void lg_echo_stop(lg_echo *e);

#endif
