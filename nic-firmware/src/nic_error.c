/* SPDX-License-Identifier: Apache-2.0 */
/* nic_error: the one error setter of e3-nic's modules (nic.h). */
#include <stdarg.h>
#include <stdio.h>

#include "e3svc/errbuf.h"
#include "nic.h"

E3_DEFINE_SET_ERROR(nic_set_error, NIC_ERRBUF_LEN, NIC_ERR)
