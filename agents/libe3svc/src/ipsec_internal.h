/* SPDX-License-Identifier: Apache-2.0 */
/* Private crypto helpers of the ipsec service, exposed for known-answer tests. All use OpenSSL
 * EVP and return SVC_OK or SVC_ERR. */
#ifndef E3SVC_IPSEC_INTERNAL_H
#define E3SVC_IPSEC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* AES-128-CBC encrypt `len` bytes. pad=1: PKCS#7 padding, out needs len+16 bytes; pad=0: len
 * must be a multiple of 16. *out_len receives the ciphertext length. */
int ipsec_aes128_cbc(const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t len, int pad,
                     uint8_t *out, size_t *out_len);
/* SHA-1 digest (20 bytes). */
int ipsec_sha1(const uint8_t *in, size_t len, uint8_t out[20]);
/* HMAC-SHA1 (20 bytes; the service sends the first 12, HMAC-SHA1-96 per RFC 2404). */
int ipsec_hmac_sha1(const uint8_t *key, size_t klen, const uint8_t *in, size_t len, uint8_t out[20]);

#endif
