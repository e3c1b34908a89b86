/* SPDX-License-Identifier: Apache-2.0 */
/* ingest_peer_ip: the IP of each kind of gRPC peer string, nothing for the others. */
#include <string.h>

#include "check.h"
#include "ingest_peer.h"

static void ip_of(const char *peer, const char *want) {
    char ip[64];
    CHECK_EQ_INT(ingest_peer_ip(peer, ip, sizeof(ip)), 0);
    if (strcmp(ip, want) != 0) {
        fprintf(stderr, "%s: got %s, want %s\n", peer, ip, want);
        exit(1);
    }
}

static void no_ip(const char *peer) {
    char ip[64] = "x";
    CHECK_EQ_INT(ingest_peer_ip(peer, ip, sizeof(ip)), -1);
    CHECK(ip[0] == '\0');
}

int main(void) {
    ip_of("ipv4:127.0.0.1:5555", "127.0.0.1");
    ip_of("ipv4:10.1.2.3:1", "10.1.2.3");
    ip_of("ipv6:[::1]:5555", "::1");
    ip_of("ipv6:%5B::1%5D:5555", "::1");
    ip_of("ipv6:[fe80::1:2]:80", "fe80::1:2");
    no_ip("unix:/tmp/controller.sock");
    no_ip("unix:");
    no_ip("ipv4:");
    no_ip("ipv4::1");
    no_ip("ipv6:::1:5555");
    no_ip("ipv6:[]:1");
    no_ip("");
    char small[4];
    CHECK_EQ_INT(ingest_peer_ip("ipv4:127.0.0.1:1", small, sizeof(small)), -1);
    return 0;
}
