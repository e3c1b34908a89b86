/* SPDX-License-Identifier: Apache-2.0 */
/* dp: what every libe3dp module shares: return codes and the error setter. */
#ifndef E3DP_DP_H
#define E3DP_DP_H

#define DP_OK 0
#define DP_ERR -1
#define DP_ERRBUF_LEN 256 /* size of the error buffers callers pass */

/* Write a formatted reason into `err` (DP_ERRBUF_LEN bytes, may be NULL); returns DP_ERR. */
int dp_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
