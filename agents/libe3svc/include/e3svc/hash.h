/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hash: the one byte-string hash of E3's C code (the services' sketches and tables, the data
 * plane's flow hash). Header-only.
 */
#ifndef E3SVC_HASH_H
#define E3SVC_HASH_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64 finaliser: a bijective 64-bit mixer. */
static inline uint64_t svc_mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}
/* Seeded 64-bit hash of n bytes (FNV-1a over the bytes, seed folded in, splitmix64 finish).
 * Different seeds give (practically) independent hash functions. */
static inline uint64_t svc_hash64(const void *data, size_t n, uint64_t seed) {
    const uint8_t *p = data;
    uint64_t h = 0xcbf29ce484222325ULL ^ svc_mix64(seed + 0x9e3779b97f4a7c15ULL);
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return svc_mix64(h ^ n);
}

#endif
