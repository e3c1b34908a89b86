/* SPDX-License-Identifier: Apache-2.0 */
/* dp_error: the one error setter of libe3dp's modules (e3dp/dp.h). */
#include <stdarg.h>
#include <stdio.h>

#include "e3dp/dp.h"
#include "e3svc/errbuf.h"

E3_DEFINE_SET_ERROR(dp_set_error, DP_ERRBUF_LEN, DP_ERR)
