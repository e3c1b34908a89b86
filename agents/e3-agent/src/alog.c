/* SPDX-License-Identifier: Apache-2.0 */
#include "alog.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int alog_max = ALOG_INFO;
static const char *alog_program_name = "e3-agent";
static const char *const alog_names[] = {"error", "warn", "info", "debug"};
static const char *const alog_prefix[] = {"error: ", "warning: ", "", "debug: "}; /* info: bare */

void alog_set_program(const char *name) {
    alog_program_name = name;
}

const char *alog_program(void) {
    return alog_program_name;
}

void alog_set_level(alog_level level) {
    atomic_store(&alog_max, (int)level);
}

int alog_parse_level(const char *name, alog_level *out) {
    for (int i = 0; i < 4; i++)
        if (name && strcmp(name, alog_names[i]) == 0) {
            *out = (alog_level)i;
            return 0;
        }
    return -1;
}

void alog(alog_level level, const char *fmt, ...) {
    if ((int)level > atomic_load(&alog_max)) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s%s\n", alog_program_name, alog_prefix[level], line);
}
