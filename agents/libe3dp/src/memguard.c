/* SPDX-License-Identifier: Apache-2.0 */
/* memguard: see e3dp/memguard.h. */
#include "e3dp/memguard.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "e3dp/dp.h"
#include "e3dp/poll.h"

/* The burst this thread is inside, if guarded: where to return to. */
static __thread sigjmp_buf *volatile guard_jump;
/* The fault that ended it: its signal and the address it touched (for the crash message). */
static __thread volatile sig_atomic_t guard_signal;
static __thread void *volatile guard_address;

/* Async-signal-safe only: whether the fault was the peer leaving needs the port's link state, which only
 * DPDK's API tells (rte_eth_link_get_nowait may call into the PMD and log: not safe here), so the handler
 * records the fault and jumps back to dp_guarded_burst, which asks outside the handler. A fault outside a
 * guarded burst gets the default action: restored here (signal(2) is async-signal-safe), it is taken when
 * the faulting instruction runs again on return. */
static void on_fault(int sig, siginfo_t *info, void *uctx) {
    (void)uctx;
    sigjmp_buf *jump = guard_jump;
    if (jump) {
        guard_jump = NULL;
        guard_signal = sig;
        guard_address = info->si_addr;
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

/* A fault in a burst on a port whose link is up: a real crash. Said on stderr (the core's stack ends here,
 * not at the faulting instruction: the message names its address), then the default action of `sig`. */
static void crash(int sig, void *address, uint16_t port) {
    fprintf(stderr, "memguard: %s at address %p in a burst on port %u whose link is up: not its peer leaving, "
            "crashing\n", sig == SIGBUS ? "SIGBUS" : "SIGSEGV", address, port);
    fflush(stderr);
    signal(sig, SIG_DFL);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    raise(sig);
    _exit(128 + sig); /* not reached: the default action of SIGSEGV and SIGBUS ends the process */
}

uint16_t dp_guarded_burst(dp_burst_fn burst, uint16_t port, struct rte_mbuf **pkts, uint16_t n, int *faulted) {
    sigjmp_buf jump;
    if (sigsetjmp(jump, 0)) {
        /* The PMD marks the link down before it unmaps: a fault while it is up is not that race. */
        if (dp_link_up(port)) crash(guard_signal, guard_address, port);
        *faulted = 1;
        return 0;
    }
    guard_jump = &jump;
    uint16_t done = burst(port, 0, pkts, n);
    guard_jump = NULL;
    *faulted = 0;
    return done;
}
