/* SPDX-License-Identifier: Apache-2.0 */
/* nic: what every e3-nic module shares: return codes, the error setter, limits. */
#ifndef E3NIC_NIC_H
#define E3NIC_NIC_H

#define NIC_OK 0
#define NIC_ERR -1
#define NIC_ERRBUF_LEN 256  /* size of the error buffers callers pass */
#define NIC_MAX_WIRE 4      /* wire ports per NIC */

/* Write a formatted reason into `err` (NIC_ERRBUF_LEN bytes, may be NULL); returns NIC_ERR. */
int nic_set_error(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
