/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one formatter behind every module's error setter (svc_set_error, eng_set_error,
 * chan_set_error, ...): each keeps its own name, buffer size and return code, is defined in one
 * line with E3_DEFINE_SET_ERROR, and formats through e3_vset_error. Shared by libe3svc and
 * e3-agent (which links libe3svc).
 */
#ifndef E3SVC_ERRBUF_H
#define E3SVC_ERRBUF_H

#include <stdarg.h>
#include <stddef.h>

/* Format `fmt`/`ap` into `err` (`len` bytes, truncated and always NUL-terminated); does nothing
 * when `err` is NULL. Does not va_end `ap`. */
void e3_vset_error(char *err, size_t len, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* Define `int name(char *err, const char *fmt, ...)`: format into `err` (`len` bytes, may be
 * NULL) and return `code`, for `return name(err, ...)`. Prefix with `static` for a file-local
 * setter; declare it with __attribute__((format(printf, 2, 3))) as usual. */
#define E3_DEFINE_SET_ERROR(name, len, code)          \
    int name(char *err, const char *fmt, ...) {       \
        va_list ap;                                   \
        va_start(ap, fmt);                            \
        e3_vset_error(err, (len), fmt, ap);           \
        va_end(ap);                                   \
        return (code);                                \
    }

#endif
