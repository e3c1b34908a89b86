/* SPDX-License-Identifier: Apache-2.0 */
/* ctlist: the controller list's parsing and refusals, the preferred index (FNV-1a of cluster/server mod N)
 * and the walk: preferred first, then the next ones, a back-off only after a whole pass failed. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ctlist.h"

/* The reference FNV-1a (32 bits) of one string, checked against published vectors below. */
static uint32_t fnv1a_ref(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void test_parse(void) {
    char err[CTL_ERRBUF_LEN];
    ctl_list l;
    CHECK_EQ_INT(ctl_parse("127.0.0.1:50051", &l, err), CTL_OK); /* one address: as before */
    CHECK_EQ_INT(l.n, 1);
    CHECK(strcmp(l.addresses[0], "127.0.0.1:50051") == 0);

    CHECK_EQ_INT(ctl_parse("a:1,b:2, c:3 ,\td:4", &l, err), CTL_OK);
    CHECK_EQ_INT(l.n, 4);
    CHECK(strcmp(l.addresses[0], "a:1") == 0 && strcmp(l.addresses[1], "b:2") == 0);
    CHECK(strcmp(l.addresses[2], "c:3") == 0 && strcmp(l.addresses[3], "d:4") == 0);

    char full[CTL_MAX_ADDRESSES * 8] = "";
    for (int i = 0; i < CTL_MAX_ADDRESSES; i++) {
        char one[8];
        snprintf(one, sizeof(one), "%sh:%d", i ? "," : "", i);
        strcat(full, one);
    }
    CHECK_EQ_INT(ctl_parse(full, &l, err), CTL_OK);
    CHECK_EQ_INT(l.n, CTL_MAX_ADDRESSES);
    CHECK(strcmp(l.addresses[CTL_MAX_ADDRESSES - 1], "h:15") == 0);

    char longest[CTL_ADDRESS_LEN];
    memset(longest, 'x', sizeof(longest) - 1);
    longest[sizeof(longest) - 1] = '\0';
    CHECK_EQ_INT(ctl_parse(longest, &l, err), CTL_OK);
    CHECK_EQ_INT(strlen(l.addresses[0]), CTL_ADDRESS_LEN - 1);
}

static void refused(const char *spec, const char *fragment) {
    char err[CTL_ERRBUF_LEN] = "";
    ctl_list l;
    CHECK_EQ_INT(ctl_parse(spec, &l, err), CTL_ERR);
    if (!strstr(err, fragment)) fprintf(stderr, "error \"%s\" lacks \"%s\"\n", err, fragment);
    CHECK(strstr(err, fragment) != NULL);
}

static void test_refusals(void) {
    refused("", "address 1 is empty");
    refused("a:1,,b:2", "address 2 is empty (give host:port[,host:port...]): \"a:1,,b:2\"");
    refused("a:1,", "address 2 is empty");
    refused(",a:1", "address 1 is empty");
    refused("a:1, ,b:2", "address 2");

    char many[(CTL_MAX_ADDRESSES + 1) * 8] = "";
    for (int i = 0; i <= CTL_MAX_ADDRESSES; i++) {
        char one[8];
        snprintf(one, sizeof(one), "%sh:%d", i ? "," : "", i);
        strcat(many, one);
    }
    refused(many, "more than 16 addresses");

    char too_long[CTL_ADDRESS_LEN + 8] = "a:1,";
    memset(too_long + 4, 'x', CTL_ADDRESS_LEN);
    too_long[4 + CTL_ADDRESS_LEN] = '\0';
    refused(too_long, "address 2 is 256 characters long (at most 255)");
}

static void test_hash_and_preferred(void) {
    CHECK(fnv1a_ref("") == 0x811c9dc5u); /* the published FNV-1a vectors */
    CHECK(fnv1a_ref("a") == 0xe40c292cu);
    CHECK(fnv1a_ref("foobar") == 0xbf9cf968u);
    CHECK(ctl_hash("foo", "bar") == fnv1a_ref("foo/bar"));
    CHECK(ctl_hash("prod", "r0000-s00") == fnv1a_ref("prod/r0000-s00"));
    CHECK(ctl_hash("", "") == fnv1a_ref("/"));

    CHECK_EQ_INT(ctl_preferred("prod", "r0000-s00", 1), 0);
    for (size_t n = 1; n <= CTL_MAX_ADDRESSES; n++)
        CHECK_EQ_INT(ctl_preferred("prod", "r0000-s07", n), fnv1a_ref("prod/r0000-s07") % n);
    /* the same server in another cluster, or another server, may prefer another controller: over 64 servers
     * every one of 4 controllers is somebody's preferred */
    int seen[4] = {0};
    for (int s = 0; s < 64; s++) {
        char server[16];
        snprintf(server, sizeof(server), "r0000-s%02d", s);
        seen[ctl_preferred("prod", server, 4)]++;
    }
    for (int i = 0; i < 4; i++) CHECK(seen[i] > 0);
}

static void test_walk(void) {
    ctl_walk w;
    ctl_walk_init(&w, 3, 1); /* preferred 1: tries 1, 2, 0, then backs off */
    CHECK_EQ_INT(ctl_walk_current(&w), 1);
    CHECK_EQ_INT(ctl_walk_failed(&w), 0);
    CHECK_EQ_INT(ctl_walk_current(&w), 2);
    CHECK_EQ_INT(ctl_walk_failed(&w), 0);
    CHECK_EQ_INT(ctl_walk_current(&w), 0);
    CHECK_EQ_INT(ctl_walk_failed(&w), 1); /* the whole list failed in a row */
    CHECK_EQ_INT(ctl_walk_current(&w), 1);

    CHECK_EQ_INT(ctl_walk_failed(&w), 0); /* registered at 2, then its stream broke: back to 1 first */
    CHECK_EQ_INT(ctl_walk_current(&w), 2);
    ctl_walk_restart(&w);
    CHECK_EQ_INT(ctl_walk_current(&w), 1);
    CHECK_EQ_INT(ctl_walk_failed(&w), 0);
    CHECK_EQ_INT(ctl_walk_failed(&w), 0);
    CHECK_EQ_INT(ctl_walk_failed(&w), 1); /* a new pass: three failures again before backing off */

    ctl_walk_init(&w, 1, 0); /* one address: every failure backs off, as before lists */
    CHECK_EQ_INT(ctl_walk_current(&w), 0);
    CHECK_EQ_INT(ctl_walk_failed(&w), 1);
    CHECK_EQ_INT(ctl_walk_current(&w), 0);
    CHECK_EQ_INT(ctl_walk_failed(&w), 1);
}

int main(void) {
    test_parse();
    test_refusals();
    test_hash_and_preferred();
    test_walk();
    return 0;
}
