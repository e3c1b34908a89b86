/* SPDX-License-Identifier: Apache-2.0 */
/* ipsec: NIST / FIPS / RFC known answers through the service's own helpers; a full packet is
 * decrypted and its tag verified; stateless export. */
#include <openssl/evp.h>

#include "ipsec_internal.h"
#include "svc_check.h"

extern const svc_type svc_ipsec;

static void unhex(const char *s, uint8_t *out) {
    for (size_t i = 0; s[2 * i]; i++) sscanf(s + 2 * i, "%2hhx", &out[i]);
}

int main(void) {
    uint8_t key[16], iv[16], pt[64], ct[64], out[80], d[20];
    size_t n;
    /* SP 800-38A F.2.1 CBC-AES128.Encrypt */
    unhex("2b7e151628aed2a6abf7158809cf4f3c", key);
    unhex("000102030405060708090a0b0c0d0e0f", iv);
    unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
          "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710", pt);
    unhex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
          "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7", ct);
    CHECK_EQ_INT(ipsec_aes128_cbc(key, iv, pt, 64, 0, out, &n), SVC_OK);
    CHECK_EQ_INT(n, 64);
    CHECK_MEM(out, ct, 64);
    CHECK_EQ_INT(ipsec_aes128_cbc(key, iv, pt, 63, 0, out, &n), SVC_ERR);
    /* FIPS 180 "abc" */
    uint8_t want[20];
    unhex("a9993e364706816aba3e25717850c26c9cd0d89d", want);
    CHECK_EQ_INT(ipsec_sha1((const uint8_t *)"abc", 3, d), SVC_OK);
    CHECK_MEM(d, want, 20);
    /* RFC 2202 HMAC-SHA1 test case 1 */
    uint8_t hk[20];
    memset(hk, 0x0b, sizeof(hk));
    unhex("b617318655057264e28bc0b6fb378c8ef146be00", want);
    CHECK_EQ_INT(ipsec_hmac_sha1(hk, 20, (const uint8_t *)"Hi There", 8, d), SVC_OK);
    CHECK_MEM(d, want, 20);

    /* the service: decrypt a packet and check its tag */
    const svc_type *t = &svc_ipsec;
    const char *cfg = "key=2b7e151628aed2a6abf7158809cf4f3c;auth_key=0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b;"
                      "iv=000102030405060708090a0b0c0d0e0f";
    svc_instance *a = svc_check_create(t, cfg, NULL);
    const char *msg = "attack at dawn, bring 17 bytes";
    svc_buf resp = {0};
    char err[SVC_ERRBUF_LEN];
    for (int round = 0; round < 2; round++) {
        svc_buf_reset(&resp);
        CHECK_EQ_INT(t->handle(a, (const uint8_t *)msg, strlen(msg), &resp, err), SVC_OK);
        size_t ctl = (strlen(msg) / 16 + 1) * 16;
        CHECK_EQ_INT(resp.len, 16 + ctl + 12);
        CHECK_EQ_INT(ipsec_hmac_sha1(hk, 20, resp.data, 16 + ctl, d), SVC_OK);
        CHECK_MEM(resp.data + 16 + ctl, d, 12);
        uint8_t plain[64];
        int l1 = 0, l2 = 0;
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        CHECK(EVP_DecryptInit_ex(ctx, EVP_aes_128_cbc(), NULL, key, resp.data) == 1);
        CHECK(EVP_DecryptUpdate(ctx, plain, &l1, resp.data + 16, (int)ctl) == 1);
        CHECK(EVP_DecryptFinal_ex(ctx, plain + l1, &l2) == 1);
        EVP_CIPHER_CTX_free(ctx);
        CHECK_EQ_INT(l1 + l2, strlen(msg));
        CHECK_MEM(plain, msg, strlen(msg));
        /* IV_n = AES_key(iv + n): the first is F.2.1's first ciphertext block's ECB sibling */
        uint8_t ctr[16], zero[16] = {0}, want_iv[16];
        memcpy(ctr, iv, 16);
        ctr[15] = (uint8_t)(ctr[15] + round);
        CHECK_EQ_INT(ipsec_aes128_cbc(key, zero, ctr, 16, 0, want_iv, &n), SVC_OK);
        CHECK_MEM(resp.data, want_iv, 16);
    }
    /* without iv= the IVs are random and differ */
    svc_instance *r = svc_check_create(t, "key=2b7e151628aed2a6abf7158809cf4f3c;auth_key=00", NULL);
    svc_buf r2 = {0};
    svc_buf_reset(&resp);
    CHECK_EQ_INT(t->handle(r, (const uint8_t *)"x", 1, &resp, err), SVC_OK);
    CHECK_EQ_INT(t->handle(r, (const uint8_t *)"x", 1, &r2, err), SVC_OK);
    CHECK(memcmp(resp.data, r2.data, 16) != 0);
    /* bad configs, stateless export */
    svc_instance *bad = NULL;
    CHECK_EQ_INT(t->create("key=2b7e;auth_key=00", NULL, &bad, err), SVC_ERR);
    CHECK_EQ_INT(t->create("key=2b7e151628aed2a6abf7158809cf4f3c", NULL, &bad, err), SVC_ERR);
    svc_buf st = {0};
    CHECK_EQ_INT(t->export_state(a, &st, err), SVC_OK);
    CHECK_EQ_INT(st.len, 0);
    CHECK_EQ_INT(t->import_state(a, NULL, 0, err), SVC_OK);
    CHECK_EQ_INT(t->import_state(a, (const uint8_t *)"x", 1, err), SVC_ERR);
    svc_buf_free(&resp);
    svc_buf_free(&r2);
    t->destroy(a);
    t->destroy(r);
    return 0;
}
