/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e3-loadgen: drive one E3 instance over UDP and report throughput and latency as JSON
 * (docs/agents.md, "Load generator"). Wiring only: options (cli), one run or a knee search
 * (loadgen, knee), output (report). Exit 0 ok, 1 the target never answered or a run could not
 * start, 2 bad options.
 */
#include <stdio.h>

#include "cli.h"
#include "knee.h"
#include "loadgen.h"
#include "report.h"

static void on_step(void *ctx, const lg_knee_step *st) {
    (void)ctx;
    char label[64];
    snprintf(label, sizeof(label), "e3-loadgen: step %.0f/s (%s)", st->rate_rps, st->good ? "good" : "stop");
    lg_report_line(stderr, label, &st->r);
    if (!st->good) fprintf(stderr, "e3-loadgen: stop: %s\n", st->why);
}

int main(int argc, char **argv) {
    char err[LG_CLI_ERRBUF_LEN > LG_ERRBUF_LEN ? LG_CLI_ERRBUF_LEN : LG_ERRBUF_LEN];
    lg_opts o;
    if (lg_cli_parse(argc, argv, &o, err) != LG_CLI_OK) {
        fprintf(stderr, "e3-loadgen: %s\n%s", err, lg_cli_usage());
        lg_cli_free(&o);
        return 2;
    }
    if (o.help) {
        fputs(lg_cli_usage(), stdout);
        lg_cli_free(&o);
        return 0;
    }
    lg_config cfg = {.mode = o.mode, .connections = o.connections, .rate = o.rate, .duration_s = o.duration_s,
                     .warmup_s = o.warmup_s, .payload = o.payload, .payload_len = o.payload_len,
                     .timeout_ms = o.timeout_ms, .instance_id = o.instance_id};
    if (lg_resolve(o.host, o.port, &cfg.target, err) != LG_OK) {
        fprintf(stderr, "e3-loadgen: %s\n", err);
        lg_cli_free(&o);
        return 2;
    }

    int rc = 1, answered = 0;
    if (o.knee) {
        lg_knee k;
        if (lg_knee_run(&cfg, &k, on_step, NULL, err) == LG_OK) {
            lg_report_knee(stdout, o.target, &cfg, &k);
            for (size_t i = 0; i < k.n; i++) answered |= k.steps[i].r.answered > 0;
            fprintf(stderr, "e3-loadgen: knee %.0f req/s\n", k.knee_rps);
            rc = 0;
        } else {
            fprintf(stderr, "e3-loadgen: %s\n", err);
        }
        lg_knee_free(&k);
    } else {
        lg_result r;
        if (lg_run(&cfg, &r, err) == LG_OK) {
            lg_report_run(stdout, o.target, &cfg, &r);
            lg_report_line(stderr, "e3-loadgen", &r);
            answered = r.answered > 0;
            rc = 0;
        } else {
            fprintf(stderr, "e3-loadgen: %s\n", err);
        }
    }
    if (rc == 0 && !answered) {
        fprintf(stderr, "e3-loadgen: %s never answered\n", o.target);
        rc = 1;
    }
    lg_cli_free(&o);
    return rc;
}
