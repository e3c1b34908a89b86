/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tiny assertion macros shared by every C test suite under agents/ (libe3svc, e3-agent). A failed check prints file:line and the
 * failed expression to stderr and exits with status 1; a test's main() returns 0 on success.
 */
#ifndef E3_TESTING_CHECK_H
#define E3_TESTING_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                          \
    do {                                                                                            \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                             \
        if (check_a_ != check_b_) {                                                                 \
            fprintf(stderr, "%s:%d: CHECK_EQ_INT failed: %s == %s (%lld != %lld)\n", __FILE__,      \
                    __LINE__, #a, #b, check_a_, check_b_);                                          \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

#define CHECK_MEM(a, b, n)                                                                          \
    do {                                                                                            \
        if (memcmp((a), (b), (n)) != 0) {                                                           \
            fprintf(stderr, "%s:%d: CHECK_MEM failed: %s == %s (%zu bytes)\n", __FILE__, __LINE__,  \
                    #a, #b, (size_t)(n));                                                           \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

#endif
