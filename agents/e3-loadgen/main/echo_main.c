/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e3-loadgen-echo: the echo service (src/echo.h) as a program, a known target for hand runs of
 * e3-loadgen. `e3-loadgen-echo [--bind IP] [--port N]`: prints "e3-loadgen-echo: listening on
 * IP:PORT" and answers until SIGINT/SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "echo.h"
#include "loadgen.h"

int main(int argc, char **argv) {
    const char *ip = "127.0.0.1";
    long port = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bind") && i + 1 < argc) ip = argv[++i];
        else if (!strcmp(argv[i], "--port") && i + 1 < argc) port = strtol(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: e3-loadgen-echo [--bind IP] [--port N]\n");
            return 2;
        }
    }
    if (port < 0 || port > 65535) {
        fprintf(stderr, "e3-loadgen-echo: --port: %ld is not in 0..65535\n", port);
        return 2;
    }
    /* Block the signals before the echo thread starts, so only sigwait below takes them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    char err[LG_ERRBUF_LEN];
    lg_echo *e = lg_echo_start(ip, (uint16_t)port, 0, err);
    if (!e) {
        fprintf(stderr, "e3-loadgen-echo: %s\n", err);
        return 1;
    }
    printf("e3-loadgen-echo: listening on %s:%u\n", ip, lg_echo_port(e));
    fflush(stdout);
    int sig;
    sigwait(&set, &sig);
    fprintf(stderr, "e3-loadgen-echo: %llu requests answered\n", (unsigned long long)lg_echo_answered(e));
    lg_echo_stop(e);
    return 0;
}
