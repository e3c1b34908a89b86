/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report: e3-loadgen's output. One JSON object on a stream (the run, or the knee search with
 * its steps) and a one-line human summary. Field names and units: docs/agents.md,
 * "Load generator".
 */
#ifndef E3LOADGEN_REPORT_H
#define E3LOADGEN_REPORT_H

#include <stdio.h>

#include "knee.h"
#include "loadgen.h"

/* The run's JSON object and a newline. `target` is the text given to --target. */
void lg_report_run(FILE *f, const char *target, const lg_config *cfg, const lg_result *r);

/* The knee search's JSON object (every step) and a newline. */
void lg_report_knee(FILE *f, const char *target, const lg_config *cfg, const lg_knee *k);

/* One line: counts, throughput, latency percentiles. `label` starts it (e.g. "e3-loadgen"). */
void lg_report_line(FILE *f, const char *label, const lg_result *r);

#endif
