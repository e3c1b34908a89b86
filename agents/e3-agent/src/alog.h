/* SPDX-License-Identifier: Apache-2.0 */
/*
 * alog: the agent's log: one line per event on stderr, "<program>: <text>" (info) or
 * "<program>: error|warning|debug: <text>", the program being "e3-agent" unless set. A single
 * fprintf per line keeps lines whole when several threads log.
 */
#ifndef E3AGENT_ALOG_H
#define E3AGENT_ALOG_H

typedef enum alog_level {
    ALOG_ERROR = 0, /* the agent cannot do what it was asked */
    ALOG_WARN = 1,  /* something failed and is retried, or was refused */
    ALOG_INFO = 2,  /* lifecycle: connected, registered, commands, stopped */
    ALOG_DEBUG = 3, /* per-batch detail */
} alog_level;

/* The name lines start with (a string that outlives the process's logging). Call before any
 * thread logs. */
void alog_set_program(const char *name);

/* The name lines start with. */
const char *alog_program(void);

/* Lines above `level` are dropped (default ALOG_INFO). */
void alog_set_level(alog_level level);

/* "error" | "warn" | "info" | "debug" -> level; returns 0 on success, -1 if unknown. */
int alog_parse_level(const char *name, alog_level *out);

/* Log one line (no trailing newline in fmt). Any thread. */
void alog(alog_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
