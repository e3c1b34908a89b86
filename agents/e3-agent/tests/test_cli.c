/* SPDX-License-Identifier: Apache-2.0 */
/* cli + backoff: the agent's options (defaults, both spellings, derived names, the host link's
 * options, refusals), where its token comes from, and the reconnect delays. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backoff.h"
#include "check.h"
#include "cli.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_defaults_and_derived(void) {
    char err[CLI_ERRBUF_LEN];
    cli_opts o;
    char *a[] = {"e3-agent", "--cluster", "c1", "--server", "s0"};
    CHECK_EQ_INT(cli_parse(ARGC(a), a, &o, err), CLI_OK);
    CHECK(strcmp(o.controller, "127.0.0.1:50051") == 0);
    CHECK_EQ_INT(o.controllers.n, 1);
    CHECK(strcmp(o.controllers.addresses[0], "127.0.0.1:50051") == 0);
    CHECK(strcmp(o.address, "127.0.0.1") == 0);
    CHECK(strcmp(o.node, "s0/host") == 0);
    CHECK_EQ_INT(o.kind, E3RPC_NODE_HOST);
    CHECK_EQ_INT(o.workers, 2);
    CHECK_EQ_INT(o.heartbeat_ms, 0);
    CHECK(o.agent_id == NULL && o.powercap_root == NULL);
    CHECK_EQ_INT(o.cpu_from_engine, 0); /* the machine's /proc/stat by default */
    CHECK_EQ_INT(o.log_level, ALOG_INFO);

    char *b[] = {"e3-agent", "--cluster=c2", "--node=rack-0-s3/nic1", "--kind", "smartnic", "--workers=4",
                 "--address", "10.0.0.7", "--heartbeat-ms", "100", "--power-idle-w", "98", "--power-peak-w=222.5",
                 "--powercap-root", "/tmp/pc", "--agent-id", "agent-7", "--log-level", "debug",
                 "--controller", "ctl:5000", "--forward-timeout-ms", "500", "--cpu-source", "engine"};
    CHECK_EQ_INT(cli_parse(ARGC(b), b, &o, err), CLI_OK);
    CHECK(strcmp(o.cluster, "c2") == 0);
    CHECK(strcmp(o.server, "rack-0-s3") == 0); /* derived from the node name */
    CHECK_EQ_INT(o.kind, E3RPC_NODE_SMARTNIC);
    CHECK_EQ_INT(o.workers, 4);
    CHECK(strcmp(o.address, "10.0.0.7") == 0);
    CHECK_EQ_INT(o.heartbeat_ms, 100);
    CHECK(o.idle_w == 98.0 && o.peak_w == 222.5);
    CHECK(strcmp(o.powercap_root, "/tmp/pc") == 0);
    CHECK(strcmp(o.agent_id, "agent-7") == 0);
    CHECK_EQ_INT(o.log_level, ALOG_DEBUG);
    CHECK(strcmp(o.controller, "ctl:5000") == 0);
    CHECK_EQ_INT(o.controllers.n, 1);
    CHECK_EQ_INT(o.forward_timeout_ms, 500);
    CHECK_EQ_INT(o.cpu_from_engine, 1);

    char *c[] = {"e3-agent", "--cluster", "c", "--server", "s", "--controller=ctl-a:5000,ctl-b:5000,ctl-c:5001"};
    CHECK_EQ_INT(cli_parse(ARGC(c), c, &o, err), CLI_OK);
    CHECK_EQ_INT(o.controllers.n, 3);
    CHECK(strcmp(o.controllers.addresses[0], "ctl-a:5000") == 0);
    CHECK(strcmp(o.controllers.addresses[2], "ctl-c:5001") == 0);

    char *h[] = {"e3-agent", "--help"};
    CHECK_EQ_INT(cli_parse(ARGC(h), h, &o, err), CLI_OK);
    CHECK(o.help);
}

static void refused(int argc, char **argv, const char *fragment) {
    char err[CLI_ERRBUF_LEN] = "";
    cli_opts o;
    CHECK_EQ_INT(cli_parse(argc, argv, &o, err), CLI_ERR);
    if (!strstr(err, fragment)) fprintf(stderr, "error \"%s\" lacks \"%s\"\n", err, fragment);
    CHECK(strstr(err, fragment) != NULL);
}

static void test_refusals(void) {
    char *a[] = {"e3-agent", "--server", "s0"};
    refused(ARGC(a), a, "--cluster is required");
    char *b[] = {"e3-agent", "--cluster", "c"};
    refused(ARGC(b), b, "--node or --server");
    char *c[] = {"e3-agent", "--cluster", "c", "--node", "lonely"};
    refused(ARGC(c), c, "--server is required");
    char *d[] = {"e3-agent", "--cluster", "c", "--server", "s", "--workers", "0"};
    refused(ARGC(d), d, "--workers");
    char *e[] = {"e3-agent", "--cluster", "c", "--server", "s", "--workers", "3x"};
    refused(ARGC(e), e, "--workers");
    char *f[] = {"e3-agent", "--cluster", "c", "--server", "s", "--kind", "dpu"};
    refused(ARGC(f), f, "--kind");
    char *g[] = {"e3-agent", "--cluster", "c", "--server", "s", "--bogus", "1"};
    refused(ARGC(g), g, "unknown option \"--bogus\"");
    char *h[] = {"e3-agent", "--cluster", "c", "--server"};
    refused(ARGC(h), h, "--server needs a value");
    char *i[] = {"e3-agent", "--cluster", "c", "--server", "s", "--power-idle-w", "300"};
    refused(ARGC(i), i, "--power-peak-w must be at least");
    char *j[] = {"e3-agent", "--cluster", "c", "--server", "s", "--log-level", "loud"};
    refused(ARGC(j), j, "--log-level");
    char *k[] = {"e3-agent", "stray"};
    refused(ARGC(k), k, "unexpected argument");
    char *l[] = {"e3-agent", "--cluster", "c", "--server", "s", "--cpu-source", "guess"};
    refused(ARGC(l), l, "--cpu-source");
    char *m[] = {"e3-agent", "--cluster", "c", "--server", "s", "--controller", "a:1,,b:2"};
    refused(ARGC(m), m, "--controller: address 2 is empty");
    char *n[] = {"e3-agent", "--cluster", "c", "--server", "s", "--controller", ""};
    refused(ARGC(n), n, "--controller: address 1 is empty");
    char *p[] = {"e3-agent", "--cluster", "c", "--server", "s", "--controller",
                 "a:1,b:2,c:3,d:4,e:5,f:6,g:7,h:8,i:9,j:10,k:11,l:12,m:13,n:14,o:15,p:16,q:17"};
    refused(ARGC(p), p, "--controller: more than 16 addresses");
}

static void test_memif(void) {
    char err[CLI_ERRBUF_LEN];
    cli_opts o;
    char *a[] = {"e3-agent", "--cluster", "c", "--server", "s"};
    CHECK_EQ_INT(cli_parse(ARGC(a), a, &o, err), CLI_OK);
    CHECK_EQ_INT(o.n_memif, 0); /* kernel sockets */
    CHECK(o.file_prefix == NULL && o.eal_extra == NULL);
    CHECK_EQ_INT(o.busy_poll, 0);
    char *b[] = {"e3-agent", "--cluster", "c", "--server", "s", "--memif", "/run/e3/s-nic0.sock",
                 "--memif=/run/e3/s-nic1.sock", "--file-prefix", "e3-c-s-host", "--poll", "busy",
                 "--eal", "--log-level eal:debug"};
    CHECK_EQ_INT(cli_parse(ARGC(b), b, &o, err), CLI_OK);
    CHECK_EQ_INT(o.n_memif, 2);
    CHECK(strcmp(o.memifs[0], "/run/e3/s-nic0.sock") == 0);
    CHECK(strcmp(o.memifs[1], "/run/e3/s-nic1.sock") == 0);
    CHECK(strcmp(o.file_prefix, "e3-c-s-host") == 0);
    CHECK_EQ_INT(o.busy_poll, 1);
    CHECK(strcmp(o.eal_extra, "--log-level eal:debug") == 0);
    char *c[] = {"e3-agent", "--cluster", "c", "--server", "s", "--memif", "/a", "--poll", "adaptive"};
    CHECK_EQ_INT(cli_parse(ARGC(c), c, &o, err), CLI_OK);
    CHECK_EQ_INT(o.busy_poll, 0);
}

static void test_memif_refusals(void) {
    char *a[] = {"e3-agent", "--cluster", "c", "--server", "s", "--memif", "/a,role=server"};
    refused(ARGC(a), a, "--memif: \"/a,role=server\" is not a socket path");
    char *b[] = {"e3-agent", "--cluster", "c", "--server", "s", "--memif", "/a", "--memif", "/b",
                 "--memif", "/c", "--memif", "/d", "--memif", "/e"};
    refused(ARGC(b), b, "--memif: at most 4");
    char *c[] = {"e3-agent", "--cluster", "c", "--server", "s", "--file-prefix", "p"};
    refused(ARGC(c), c, "--file-prefix needs --memif");
    char *d[] = {"e3-agent", "--cluster", "c", "--server", "s", "--poll", "busy"};
    refused(ARGC(d), d, "--poll needs --memif");
    char *e[] = {"e3-agent", "--cluster", "c", "--server", "s", "--eal", "-v"};
    refused(ARGC(e), e, "--eal needs --memif");
    char *f[] = {"e3-agent", "--cluster", "c", "--server", "s", "--memif", "/a", "--poll", "lazy"};
    refused(ARGC(f), f, "--poll: \"lazy\"");
    char *g[] = {"e3-agent", "--cluster", "c", "--server", "s", "--memif", "/a", "--file-prefix", "x/y"};
    refused(ARGC(g), g, "--file-prefix");
    char *h[] = {"e3-agent", "--cluster", "c", "--server", "s", "--memif", ""};
    refused(ARGC(h), h, "--memif");
}

static void test_token(void) {
    char err[CLI_ERRBUF_LEN], tok[128];
    cli_opts o;
    char *a[] = {"e3-agent", "--cluster", "c", "--server", "s", "--token", "argv-token"};
    CHECK_EQ_INT(cli_parse(ARGC(a), a, &o, err), CLI_OK);
    CHECK_EQ_INT(cli_token(&o, NULL, tok, sizeof(tok), err), CLI_OK);
    CHECK(strcmp(tok, "argv-token") == 0);
    CHECK_EQ_INT(cli_token(&o, " env-token\n", tok, sizeof(tok), err), CLI_OK); /* env beats argv */
    CHECK(strcmp(tok, "env-token") == 0);

    char path[] = "/tmp/e3agent_test_tokenXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, "file-token  \nsecond line\n", 25) == 25);
    close(fd);
    o.token_file = path;
    CHECK_EQ_INT(cli_token(&o, "env-token", tok, sizeof(tok), err), CLI_OK); /* file beats env */
    CHECK(strcmp(tok, "file-token") == 0);
    unlink(path);
    CHECK_EQ_INT(cli_token(&o, "env-token", tok, sizeof(tok), err), CLI_ERR); /* named file missing */
    CHECK(strstr(err, path) != NULL);

    o.token_file = NULL;
    o.token = NULL;
    CHECK_EQ_INT(cli_token(&o, "", tok, sizeof(tok), err), CLI_ERR);
    CHECK(strstr(err, CLI_TOKEN_ENV) != NULL);
}

static void test_tls_ca(void) {
    char err[CLI_ERRBUF_LEN], *pem = (char *)"unset";
    cli_opts o;
    char *a[] = {"e3-agent", "--cluster", "c", "--server", "s"};
    CHECK_EQ_INT(cli_parse(ARGC(a), a, &o, err), CLI_OK);
    CHECK_EQ_INT(cli_tls_ca(&o, &pem, err), CLI_OK); /* no --tls-ca: plaintext */
    CHECK(pem == NULL);

    char path[] = "/tmp/e3agent_test_caXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char cert[] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    CHECK(write(fd, cert, sizeof(cert) - 1) == (ssize_t)(sizeof(cert) - 1));
    close(fd);
    char *b[] = {"e3-agent", "--cluster", "c", "--server", "s", "--tls-ca", path};
    CHECK_EQ_INT(cli_parse(ARGC(b), b, &o, err), CLI_OK);
    CHECK_EQ_INT(cli_tls_ca(&o, &pem, err), CLI_OK);
    CHECK(pem && strcmp(pem, cert) == 0);
    free(pem);

    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && write(fd, "not a certificate\n", 18) == 18);
    close(fd);
    CHECK_EQ_INT(cli_tls_ca(&o, &pem, err), CLI_ERR);
    CHECK(strstr(err, "no PEM certificate") != NULL && pem == NULL);
    unlink(path);
    CHECK_EQ_INT(cli_tls_ca(&o, &pem, err), CLI_ERR); /* missing file: named */
    CHECK(strstr(err, path) != NULL);
}

static void test_backoff(void) {
    bo_state b = {0};
    uint32_t lo[] = {50, 100, 200, 400, 800, 1600, 2500, 2500}, hi[] = {100, 200, 400, 800, 1600, 3200, 5000, 5000};
    for (int i = 0; i < 8; i++) {
        uint32_t d0 = bo_next(&(bo_state){b.base_ms}, 0), d1 = bo_next(&b, UINT32_MAX);
        CHECK(d0 == lo[i]);
        CHECK(d1 >= lo[i] && d1 <= hi[i]);
    }
    bo_reset(&b);
    CHECK(bo_next(&b, 0) == 50);
}

int main(void) {
    test_defaults_and_derived();
    test_refusals();
    test_memif();
    test_memif_refusals();
    test_token();
    test_tls_ca();
    test_backoff();
    return 0;
}
