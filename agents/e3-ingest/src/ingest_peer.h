/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The caller's IP out of gRPC's peer string, for the x-e3-peer metadata the front adds: behind the front
 * the controller's own peer is its unix socket, and Register's control_address needs the agent's address.
 */
#ifndef E3_INGEST_PEER_H
#define E3_INGEST_PEER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The IP of a gRPC peer ("ipv4:127.0.0.1:5555" -> "127.0.0.1", "ipv6:[::1]:5555" or
 * "ipv6:%5B::1%5D:5555" -> "::1") into out (len bytes, NUL-terminated). Returns 0, or -1 for any other
 * kind of peer (unix:, malformed) or an IP that does not fit; out is then "".
 */
int ingest_peer_ip(const char *peer, char *out, size_t len);

#ifdef __cplusplus
}
#endif

#endif
