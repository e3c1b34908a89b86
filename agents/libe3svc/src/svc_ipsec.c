/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ipsec: ESP-style encryption and authentication of a payload (paper Table 2): AES-128-CBC
 * with PKCS#7 padding, then HMAC-SHA1-96 (RFC 2404) over IV || ciphertext. Stateless.
 *
 * Wire format (binary):
 *   request  = payload bytes (at most SVC_MAX_RESPONSE - 44)
 *   response = IV (16) || ciphertext (payload padded to a multiple of 16) || tag (12)
 * Config: key=<32 hex digits, AES-128 key> (required), auth_key=<hex, 1..64 bytes> (required),
 *         iv=<32 hex digits> (optional). With iv, packet n (from 0) uses IV = AES_key(iv + n)
 *         (the counter added to iv as a 128-bit big-endian number; SP 800-38A App. C), which is
 *         deterministic for tests; without it every IV comes from RAND_bytes.
 * Exports no state; import accepts only empty state.
 */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <stdlib.h>

#include "ipsec_internal.h"
#include "svc_util.h"

#define IPSEC_TAG_LEN 12      /* HMAC-SHA1-96 */
#define IPSEC_MAX_AUTH_KEY 64 /* bytes */

struct svc_instance {
    uint8_t key[16];                     /* AES-128 key */
    uint8_t auth_key[IPSEC_MAX_AUTH_KEY]; /* HMAC key */
    size_t auth_key_len;                 /* bytes */
    int have_iv;                         /* 1: IVs derived from iv_base + counter */
    uint8_t iv_base[16];                 /* configured IV seed */
    uint64_t packets;                    /* packets encrypted, the IV counter */
};

int ipsec_aes128_cbc(const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t len, int pad,
                     uint8_t *out, size_t *out_len) {
    int ok = 0, n1 = 0, n2 = 0;
    if (len > (size_t)INT32_MAX - 32 || (!pad && len % 16 != 0)) return SVC_ERR;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) return SVC_ERR;
    if (EVP_EncryptInit_ex(ctx, EVP_aes_128_cbc(), NULL, key, iv) == 1 && EVP_CIPHER_CTX_set_padding(ctx, pad) == 1 &&
        EVP_EncryptUpdate(ctx, out, &n1, in, (int)len) == 1 && EVP_EncryptFinal_ex(ctx, out + n1, &n2) == 1) {
        *out_len = (size_t)n1 + (size_t)n2;
        ok = 1;
    }
    EVP_CIPHER_CTX_free(ctx);
    return ok ? SVC_OK : SVC_ERR;
}

int ipsec_sha1(const uint8_t *in, size_t len, uint8_t out[20]) {
    unsigned int n = 0;
    return EVP_Digest(in, len, out, &n, EVP_sha1(), NULL) == 1 && n == 20 ? SVC_OK : SVC_ERR;
}

int ipsec_hmac_sha1(const uint8_t *key, size_t klen, const uint8_t *in, size_t len, uint8_t out[20]) {
    unsigned int n = 0;
    if (klen > INT32_MAX) return SVC_ERR;
    return HMAC(EVP_sha1(), key, (int)klen, in, len, out, &n) && n == 20 ? SVC_OK : SVC_ERR;
}

/* Decode hex into out (at most max bytes); returns the byte count, or 0 on bad input. */
static size_t unhex(const char *s, uint8_t *out, size_t max) {
    size_t n = strlen(s);
    if (n == 0 || n % 2 || n / 2 > max) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0) return 0;
        if (i % 2 == 0) out[i / 2] = (uint8_t)(v << 4);
        else out[i / 2] |= (uint8_t)v;
    }
    return n / 2;
}

static void ipsec_destroy(svc_instance *inst) {
    if (!inst) return;
    OPENSSL_cleanse(inst, sizeof(*inst));
    free(inst);
}

static int ipsec_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    (void)env;
    char hex[2 * IPSEC_MAX_AUTH_KEY + 1];
    svc_instance *inst = calloc(1, sizeof(*inst));
    if (!inst) {
        svc_set_error(err, "ipsec: out of memory");
        goto err;
    }
    if (!svc_config_str(config, "key", hex, sizeof(hex)) || unhex(hex, inst->key, 16) != 16) {
        svc_set_error(err, "ipsec: config needs key=<32 hex digits>");
        goto err;
    }
    inst->auth_key_len = svc_config_str(config, "auth_key", hex, sizeof(hex)) ? unhex(hex, inst->auth_key, IPSEC_MAX_AUTH_KEY) : 0;
    if (inst->auth_key_len == 0) {
        svc_set_error(err, "ipsec: config needs auth_key=<hex, 1..64 bytes>");
        goto err;
    }
    if (svc_config_str(config, "iv", hex, sizeof(hex))) {
        if (unhex(hex, inst->iv_base, 16) != 16) {
            svc_set_error(err, "ipsec: iv must be 32 hex digits");
            goto err;
        }
        inst->have_iv = 1;
    }
    OPENSSL_cleanse(hex, sizeof(hex));
    *out = inst;
    return SVC_OK;
err:
    OPENSSL_cleanse(hex, sizeof(hex));
    ipsec_destroy(inst);
    return SVC_ERR;
}

/* IV for the next packet. */
static int next_iv(svc_instance *inst, uint8_t iv[16]) {
    if (!inst->have_iv) return RAND_bytes(iv, 16) == 1 ? SVC_OK : SVC_ERR;
    uint8_t ctr[16], zero[16] = {0};
    memcpy(ctr, inst->iv_base, 16);
    uint64_t add = inst->packets;
    for (int i = 15; i >= 0; i--) { /* 128-bit big-endian ctr += packets */
        uint64_t s = (uint64_t)ctr[i] + (add & 0xff);
        ctr[i] = (uint8_t)s;
        add = (add >> 8) + (s >> 8);
    }
    size_t n;
    /* one CBC block with a zero IV is the raw block cipher */
    return ipsec_aes128_cbc(inst->key, zero, ctr, 16, 0, iv, &n);
}

static int ipsec_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    if (req_len > SVC_MAX_RESPONSE - 16 - 16 - IPSEC_TAG_LEN)
        return svc_set_error(err, "ipsec: payload of %zu bytes is too large", req_len);
    size_t start = resp->len, ct_len;
    uint8_t iv[16], tag[20];
    uint8_t *pkt = malloc(16 + req_len + 16);
    if (!pkt) return svc_set_error(err, "ipsec: out of memory");
    if (next_iv(inst, iv) != SVC_OK) {
        svc_set_error(err, "ipsec: cannot make an IV");
        goto err;
    }
    memcpy(pkt, iv, 16);
    if (ipsec_aes128_cbc(inst->key, iv, req, req_len, 1, pkt + 16, &ct_len) != SVC_OK ||
        ipsec_hmac_sha1(inst->auth_key, inst->auth_key_len, pkt, 16 + ct_len, tag) != SVC_OK) {
        svc_set_error(err, "ipsec: crypto failure");
        goto err;
    }
    if (svc_buf_append(resp, pkt, 16 + ct_len) != SVC_OK || svc_buf_append(resp, tag, IPSEC_TAG_LEN) != SVC_OK) {
        resp->len = start;
        svc_set_error(err, "ipsec: out of memory");
        goto err;
    }
    inst->packets++;
    free(pkt);
    return SVC_OK;
err:
    free(pkt);
    return SVC_ERR;
}

static int ipsec_export(svc_instance *inst, svc_buf *out, char *err) {
    (void)inst, (void)out, (void)err;
    return SVC_OK;
}

static int ipsec_import(svc_instance *inst, const uint8_t *state, size_t len, char *err) {
    (void)inst, (void)state;
    return len == 0 ? SVC_OK : svc_set_error(err, "ipsec: stateless, expected empty state");
}

const svc_type svc_ipsec = {
    .name = "ipsec",
    .stateful = 0,
    .create = ipsec_create,
    .handle = ipsec_handle,
    .export_state = ipsec_export,
    .import_state = ipsec_import,
    .destroy = ipsec_destroy,
};
