/* SPDX-License-Identifier: Apache-2.0 */
#include "ingest_peer.h"

#include <string.h>

/* Copy [begin, end) into out (len bytes); -1 if empty or too long. */
static int copy_span(const char *begin, const char *end, char *out, size_t len) {
    size_t n = (size_t)(end - begin);
    if (end <= begin || n >= len) return -1;
    memcpy(out, begin, n);
    out[n] = '\0';
    return 0;
}

int ingest_peer_ip(const char *peer, char *out, size_t len) {
    if (len == 0) return -1;
    out[0] = '\0';
    const char *port = strrchr(peer, ':');
    if (strncmp(peer, "ipv4:", 5) == 0) {
        const char *host = peer + 5;
        if (port < host) return -1;
        return copy_span(host, port, out, len);
    }
    if (strncmp(peer, "ipv6:", 5) == 0) {
        /* the address is bracketed, literally or percent-encoded (gRPC's URI form) */
        const char *host = peer + 5;
        const char *open = host[0] == '[' ? "[" : "%5B", *close = host[0] == '[' ? "]" : "%5D";
        if (strncmp(host, open, strlen(open)) != 0 || port < host) return -1;
        const char *end = port - strlen(close);
        if (end < host || strncmp(end, close, strlen(close)) != 0) return -1;
        int rc = copy_span(host + strlen(open), end, out, len);
        if (rc != 0) out[0] = '\0';
        return rc;
    }
    return -1;
}
