/* SPDX-License-Identifier: Apache-2.0 */
/* memguard: see e3dp/memguard.h. */
#include "e3dp/memguard.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "e3dp/dp.h"
#include "e3dp/poll.h"

/* The burst this thread is inside, if guarded: where to return to, and on which port. */
static __thread sigjmp_buf *volatile guard_jump;
static __thread volatile uint16_t guard_port;

/* In a guarded burst on a port whose link is down: back to dp_guarded_burst. Otherwise the default action:
 * restored here, it is taken when the faulting instruction runs again on return. */
static void on_fault(int sig, siginfo_t *info, void *uctx) {
    (void)info;
    (void)uctx;
    sigjmp_buf *jump = guard_jump;
    if (jump && !dp_link_up(guard_port)) {
        guard_jump = NULL;
        siglongjmp(*jump, 1);
    }
    signal(sig, SIG_DFL);
}

int dp_memguard_install(char *err) {
    /* SA_NODEFER: the jump out leaves the signal unblocked, so sigsetjmp need not save the mask (a
     * system call per burst). */
    struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_NODEFER};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0 || sigaction(SIGBUS, &sa, NULL) != 0)
        return dp_set_error(err, "memguard: sigaction: %s", strerror(errno));
    return DP_OK;
}

uint16_t dp_guarded_burst(dp_burst_fn burst, uint16_t port, struct rte_mbuf **pkts, uint16_t n, int *faulted) {
    sigjmp_buf jump;
    if (sigsetjmp(jump, 0)) {
        *faulted = 1;
        return 0;
    }
    guard_port = port;
    guard_jump = &jump;
    uint16_t done = burst(port, 0, pkts, n);
    guard_jump = NULL;
    *faulted = 0;
    return done;
}
