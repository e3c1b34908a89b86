/* SPDX-License-Identifier: Apache-2.0 */
/* cli: defaults, every option in both spellings, the payload choices, and refusals that name
 * the option at fault. */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "cli.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_defaults(void) {
    char err[LG_CLI_ERRBUF_LEN];
    lg_opts o;
    char *a[] = {"e3-loadgen", "--target", "127.0.0.1:9000"};
    CHECK_EQ_INT(lg_cli_parse(ARGC(a), a, &o, err), LG_CLI_OK);
    CHECK(strcmp(o.host, "127.0.0.1") == 0);
    CHECK_EQ_INT(o.port, 9000);
    CHECK_EQ_INT(o.mode, LG_MODE_CLOSED);
    CHECK_EQ_INT(o.connections, 8);
    CHECK(o.duration_s == 10 && o.warmup_s == 1);
    CHECK_EQ_INT(o.timeout_ms, 1000);
    CHECK_EQ_INT(o.knee, 0);
    CHECK_EQ_INT(o.instance_id, 0);
    /* default payload: 512 bytes, "GET k" then spaces */
    CHECK_EQ_INT(o.payload_len, 512);
    CHECK_MEM(o.payload, "GET k   ", 8);
    CHECK_EQ_INT(o.payload[511], ' ');
    lg_cli_free(&o);
}

static void test_everything_given(void) {
    char err[LG_CLI_ERRBUF_LEN];
    lg_opts o;
    char *a[] = {"e3-loadgen", "--target=localhost:7", "--mode", "open", "--rate=2500.5", "--duration", "0.5",
                 "--warmup=0", "--payload", "PUT k 1\\nUPDATE s 8", "--timeout-ms", "250", "--json", "--instance-id", "42"};
    CHECK_EQ_INT(lg_cli_parse(ARGC(a), a, &o, err), LG_CLI_OK);
    CHECK(strcmp(o.host, "localhost") == 0 && o.port == 7);
    CHECK(strcmp(o.target, "localhost:7") == 0);
    CHECK_EQ_INT(o.mode, LG_MODE_OPEN);
    CHECK(o.rate == 2500.5 && o.duration_s == 0.5 && o.warmup_s == 0);
    CHECK_EQ_INT(o.timeout_ms, 250);
    CHECK_EQ_INT(o.instance_id, 42);
    CHECK_EQ_INT(o.payload_len, strlen("PUT k 1\nUPDATE s 8"));
    CHECK_MEM(o.payload, "PUT k 1\nUPDATE s 8", o.payload_len);
    lg_cli_free(&o);

    char *b[] = {"e3-loadgen", "--target", "[::1]:9", "--connections", "64", "--size", "100"};
    CHECK_EQ_INT(lg_cli_parse(ARGC(b), b, &o, err), LG_CLI_OK);
    CHECK(strcmp(o.host, "::1") == 0 && o.port == 9);
    CHECK_EQ_INT(o.connections, 64);
    CHECK_EQ_INT(o.payload_len, 100);
    CHECK_MEM(o.payload, "GET k ", 6);
    lg_cli_free(&o);

    /* --knee alone: open loop from 1000/s; with --rate from there. */
    char *c[] = {"e3-loadgen", "--target", "h:1", "--knee"};
    CHECK_EQ_INT(lg_cli_parse(ARGC(c), c, &o, err), LG_CLI_OK);
    CHECK(o.knee && o.mode == LG_MODE_OPEN && o.rate == 1000);
    lg_cli_free(&o);
    char *d[] = {"e3-loadgen", "--target", "h:1", "--knee", "--mode", "open", "--rate", "300"};
    CHECK_EQ_INT(lg_cli_parse(ARGC(d), d, &o, err), LG_CLI_OK);
    CHECK(o.knee && o.rate == 300);
    lg_cli_free(&o);

    char *h[] = {"e3-loadgen", "--help"};
    CHECK_EQ_INT(lg_cli_parse(ARGC(h), h, &o, err), LG_CLI_OK);
    CHECK(o.help);
    lg_cli_free(&o);
}

static void test_unescape(void) {
    size_t n;
    uint8_t *p = lg_cli_unescape("a\\nb\\\\n\\tc\\x", &n);
    CHECK(p);
    CHECK_EQ_INT(n, 9);
    CHECK_MEM(p, "a\nb\\n\tc\\x", n);
    free(p);
}

static void refused(int argc, char **argv, const char *fragment) {
    char err[LG_CLI_ERRBUF_LEN] = "";
    lg_opts o;
    CHECK_EQ_INT(lg_cli_parse(argc, argv, &o, err), LG_CLI_ERR);
    lg_cli_free(&o);
    if (!strstr(err, fragment)) fprintf(stderr, "error \"%s\" lacks \"%s\"\n", err, fragment);
    CHECK(strstr(err, fragment) != NULL);
}

static void test_refusals(void) {
    char *a[] = {"e3-loadgen"};
    refused(ARGC(a), a, "--target HOST:PORT is required");
    char *b[] = {"e3-loadgen", "--target", "nocolon"};
    refused(ARGC(b), b, "--target");
    char *c[] = {"e3-loadgen", "--target", "h:70000"};
    refused(ARGC(c), c, "--target");
    char *d[] = {"e3-loadgen", "--target", "h:1", "--mode", "half"};
    refused(ARGC(d), d, "--mode");
    char *e[] = {"e3-loadgen", "--target", "h:1", "--mode", "open"};
    refused(ARGC(e), e, "--rate is required");
    char *f[] = {"e3-loadgen", "--target", "h:1", "--connections", "0"};
    refused(ARGC(f), f, "--connections");
    char *g[] = {"e3-loadgen", "--target", "h:1", "--rate", "fast"};
    refused(ARGC(g), g, "--rate");
    char *h[] = {"e3-loadgen", "--target", "h:1", "--duration", "-1"};
    refused(ARGC(h), h, "--duration");
    char *i[] = {"e3-loadgen", "--target", "h:1", "--size", "4"};
    refused(ARGC(i), i, "--size");
    char *j[] = {"e3-loadgen", "--target", "h:1", "--size", "70000"};
    refused(ARGC(j), j, "--size");
    char *k[] = {"e3-loadgen", "--target", "h:1", "--size", "64", "--payload", "GET k"};
    refused(ARGC(k), k, "--payload and --size");
    char *l[] = {"e3-loadgen", "--target", "h:1", "--timeout-ms", "0"};
    refused(ARGC(l), l, "--timeout-ms");
    char *m[] = {"e3-loadgen", "--target", "h:1", "--knee", "--mode", "closed"};
    refused(ARGC(m), m, "--knee");
    char *n[] = {"e3-loadgen", "--target", "h:1", "--bogus", "1"};
    refused(ARGC(n), n, "unknown option \"--bogus\"");
    char *o[] = {"e3-loadgen", "--target"};
    refused(ARGC(o), o, "--target needs a value");
    char *p[] = {"e3-loadgen", "--target", "h:1", "--knee=yes"};
    refused(ARGC(p), p, "--knee takes no value");
    char *q[] = {"e3-loadgen", "--target", "h:1", "--payload", ""};
    refused(ARGC(q), q, "--payload");
    char *s[] = {"e3-loadgen", "--target", "h:1", "--instance-id", "-3"};
    refused(ARGC(s), s, "--instance-id");
    char *r[] = {"e3-loadgen", "stray"};
    refused(ARGC(r), r, "unexpected argument \"stray\"");
}

int main(void) {
    test_defaults();
    test_everything_given();
    test_unescape();
    test_refusals();
    return 0;
}
