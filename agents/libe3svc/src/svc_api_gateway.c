/* SPDX-License-Identifier: Apache-2.0 */
/*
 * api_gateway: authentication + per-client rate limiting in front of an API (paper Table 2).
 *
 * Authentication: a request carries an API key, checked against the configured keys. Both sides
 * are hashed with SHA-256 and the digests compared with CRYPTO_memcmp against every configured
 * key (no early exit), so the check takes the same time whatever the key's content or length.
 * Rate limit: a token bucket per client id (burst tokens, refilled at `rate` tokens/s by the
 * injected clock from svc_env); each allowed request spends one token. Buckets live in an
 * rc_hash (client id -> {tokens, last refill ns}); a new client starts with a full bucket.
 *
 * Wire format (text):
 *   "<api_key> <client_id>" -> "ALLOW" | "RATE_LIMITED" | "UNAUTHORIZED"
 * Config: keys=<k1,k2,...> (required, at most 64), rate=<tokens/s> (default 100, > 0),
 *         burst=<tokens> (default 10, >= 1).
 * State export: the rc_hash snapshot of the buckets (keys are config, not state).
 */
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdlib.h>

#include "e3svc/rc.h"
#include "svc_hashstate.h"
#include "svc_util.h"

#define GW_MAX_KEYS 64
#define GW_KEYS_LEN 4096 /* bytes of the keys= config value */

typedef struct gw_bucket {
    double tokens;    /* tokens available */
    uint64_t last_ns; /* clock time of the last refill, ns */
} gw_bucket;

struct svc_instance {
    rc_hash *buckets;                                 /* client id -> gw_bucket */
    uint8_t key_digest[GW_MAX_KEYS][SHA256_DIGEST_LENGTH]; /* SHA-256 of each API key */
    size_t nkeys;                                     /* configured keys */
    double rate;                                      /* tokens per second */
    double burst;                                     /* bucket capacity, tokens */
    svc_env env;                                      /* clock */
};

static const svc_hashstate gw_state = {
    .name = "api_gateway",
    .inst_size = sizeof(svc_instance),
    .table_off = offsetof(svc_instance, buckets),
};

static void gw_destroy(svc_instance *inst) {
    if (!inst) return;
    OPENSSL_cleanse(inst->key_digest, sizeof(inst->key_digest));
    svc_hashstate_destroy(&gw_state, inst);
}

static int gw_create(const char *config, const svc_env *env, svc_instance **out, char *err) {
    char *keys = NULL;
    svc_instance *inst = svc_hashstate_create(&gw_state, env, err);
    if (!inst) return SVC_ERR;
    keys = malloc(GW_KEYS_LEN);
    if (!keys) {
        svc_set_error(err, "api_gateway: out of memory");
        goto err;
    }
    inst->rate = svc_config_double(config, "rate", 100.0);
    inst->burst = (double)svc_config_long(config, "burst", 10);
    if (!(inst->rate > 0.0) || inst->burst < 1.0) {
        svc_set_error(err, "api_gateway: need rate > 0 and burst >= 1");
        goto err;
    }
    if (env) inst->env = *env;
    svc_config_str(config, "keys", keys, GW_KEYS_LEN);
    for (char *k = keys, *next; *k; k = next) {
        next = strchr(k, ',');
        size_t kl = next ? (size_t)(next - k) : strlen(k);
        next = next ? next + 1 : k + kl;
        if (kl == 0) continue;
        if (inst->nkeys == GW_MAX_KEYS) {
            svc_set_error(err, "api_gateway: more than %d keys", GW_MAX_KEYS);
            goto err;
        }
        SHA256((const unsigned char *)k, kl, inst->key_digest[inst->nkeys++]);
    }
    if (inst->nkeys == 0) {
        svc_set_error(err, "api_gateway: config needs keys=<k1,k2,...>");
        goto err;
    }
    OPENSSL_cleanse(keys, GW_KEYS_LEN);
    free(keys);
    *out = inst;
    return SVC_OK;
err:
    if (keys) OPENSSL_cleanse(keys, GW_KEYS_LEN);
    free(keys);
    gw_destroy(inst);
    return SVC_ERR;
}

/* 1 if `key` is one of the configured keys; constant time in the key's content and length. */
static int gw_authenticate(const svc_instance *inst, const uint8_t *key, size_t kl) {
    uint8_t d[SHA256_DIGEST_LENGTH];
    SHA256(key, kl, d);
    int ok = 0;
    for (size_t i = 0; i < inst->nkeys; i++) ok |= CRYPTO_memcmp(d, inst->key_digest[i], sizeof(d)) == 0;
    OPENSSL_cleanse(d, sizeof(d));
    return ok;
}

static int gw_handle(svc_instance *inst, const uint8_t *req, size_t req_len, svc_buf *resp, char *err) {
    const uint8_t *p = req, *end = req + req_len, *key, *client;
    size_t kl, cl, vl;
    if (!svc_next_token(&p, end, &key, &kl) || !svc_next_token(&p, end, &client, &cl))
        return svc_set_error(err, "api_gateway: expected \"<api_key> <client_id>\"");
    const char *verdict = "UNAUTHORIZED";
    if (gw_authenticate(inst, key, kl)) {
        uint64_t now = svc_env_now(&inst->env);
        gw_bucket b = {inst->burst, now};
        const void *cur = rc_hash_get(inst->buckets, client, cl, &vl);
        if (cur && vl == sizeof(b)) {
            memcpy(&b, cur, sizeof(b));
            if (now > b.last_ns) {
                b.tokens += (double)(now - b.last_ns) * 1e-9 * inst->rate;
                if (b.tokens > inst->burst) b.tokens = inst->burst;
                b.last_ns = now;
            }
        }
        verdict = "RATE_LIMITED";
        if (b.tokens >= 1.0) {
            b.tokens -= 1.0;
            verdict = "ALLOW";
        }
        if (rc_hash_put(inst->buckets, client, cl, &b, sizeof(b)) != SVC_OK)
            return svc_set_error(err, "api_gateway: out of memory");
    }
    if (svc_buf_append(resp, verdict, strlen(verdict)) != SVC_OK)
        return svc_set_error(err, "api_gateway: out of memory");
    return SVC_OK;
}

SVC_HASHSTATE_SNAPSHOT_OPS(gw, gw_state)

SVC_HASHSTATE_LOG_OPS(gw, gw_state)

const svc_type svc_api_gateway = {
    .name = "api_gateway",
    .stateful = 1,
    .create = gw_create,
    .handle = gw_handle,
    .export_state = gw_export,
    .import_state = gw_import,
    .destroy = gw_destroy,
    .drain_log = gw_drain_log,
    .apply_log = gw_apply_log,
};
