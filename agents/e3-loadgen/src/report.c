/* SPDX-License-Identifier: Apache-2.0 */
/* report: JSON and one-line summaries of runs (see report.h). */
#include "report.h"

#include <inttypes.h>

/* A JSON string: escape what JSON requires (the target text is the only free text). */
static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* The counters and latency of one result, as members of an object already open; send_lag_us for
 * an open loop. */
static void result_members(FILE *f, const lg_result *r, lg_mode mode) {
    const lg_summary *l = &r->latency;
    fprintf(f,
            "\"duration_s\": %g, \"offered\": %" PRIu64 ", \"sent\": %" PRIu64 ", \"completed\": %" PRIu64
            ", \"errors\": %" PRIu64 ", \"timeouts\": %" PRIu64 ", \"send_failures\": %" PRIu64
            ", \"late_replies\": %" PRIu64 ", \"throughput_rps\": %.1f, "
            "\"latency_us\": {\"avg\": %.1f, \"p50\": %.1f, \"p99\": %.1f, \"p999\": %.1f, \"max\": %.1f}",
            r->duration_s, r->offered, r->sent, r->completed, r->errors, r->timeouts, r->send_failures,
            r->late_replies, r->throughput_rps, l->avg_us, l->p50_us, l->p99_us, l->p999_us, l->max_us);
    if (mode == LG_MODE_OPEN)
        fprintf(f, ", \"send_lag_us\": {\"p50\": %.1f, \"p99\": %.1f, \"max\": %.1f}", r->send_lag.p50_us,
                r->send_lag.p99_us, r->send_lag.max_us);
}

static void config_members(FILE *f, const char *target, const lg_config *cfg, const char *mode) {
    fprintf(f, "\"mode\": \"%s\", \"target\": ", mode);
    json_str(f, target);
    if (cfg->mode == LG_MODE_CLOSED) fprintf(f, ", \"connections\": %u", cfg->connections);
    else fprintf(f, ", \"rate_rps\": %g", cfg->rate);
    fprintf(f, ", \"instance_id\": %u, \"warmup_s\": %g, \"payload_bytes\": %zu, \"timeout_ms\": %u, ",
            (unsigned)cfg->instance_id, cfg->warmup_s, cfg->payload_len, cfg->timeout_ms);
}

void lg_report_run(FILE *f, const char *target, const lg_config *cfg, const lg_result *r) {
    fputc('{', f);
    config_members(f, target, cfg, cfg->mode == LG_MODE_CLOSED ? "closed" : "open");
    result_members(f, r, cfg->mode);
    fprintf(f, ", \"answered\": %s}\n", r->answered ? "true" : "false");
}

void lg_report_knee(FILE *f, const char *target, const lg_config *cfg, const lg_knee *k) {
    fputc('{', f);
    config_members(f, target, cfg, "open");
    fprintf(f, "\"knee\": true, \"steps\": [");
    int answered = 0;
    for (size_t i = 0; i < k->n; i++) {
        const lg_knee_step *st = &k->steps[i];
        fprintf(f, "%s{\"rate_rps\": %.1f, ", i ? ", " : "", st->rate_rps);
        result_members(f, &st->r, LG_MODE_OPEN);
        fprintf(f, ", \"good\": %s, \"verdict\": ", st->good ? "true" : "false");
        json_str(f, st->why);
        fputc('}', f);
        answered |= st->r.answered > 0;
    }
    fprintf(f, "], \"knee_rps\": %.1f, \"answered\": %s}\n", k->knee_rps, answered ? "true" : "false");
}

void lg_report_line(FILE *f, const char *label, const lg_result *r) {
    fprintf(f,
            "%s: %" PRIu64 " sent, %" PRIu64 " completed, %" PRIu64 " errors, %" PRIu64
            " timeouts; %.0f req/s; latency us avg %.1f p50 %.1f p99 %.1f p999 %.1f max %.1f\n",
            label, r->sent, r->completed, r->errors, r->timeouts, r->throughput_rps, r->latency.avg_us,
            r->latency.p50_us, r->latency.p99_us, r->latency.p999_us, r->latency.max_us);
}
