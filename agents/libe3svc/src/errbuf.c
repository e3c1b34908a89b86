/* SPDX-License-Identifier: Apache-2.0 */
/* The shared error-buffer formatter (see e3svc/errbuf.h). */
#include "e3svc/errbuf.h"

#include <stdio.h>

void e3_vset_error(char *err, size_t len, const char *fmt, va_list ap) {
    if (err) vsnprintf(err, len, fmt, ap);
}
