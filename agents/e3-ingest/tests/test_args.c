/* SPDX-License-Identifier: Apache-2.0 */
/* ingest_args_parse: valid command lines, and each bad one refused with a reason naming the option. */
#include <string.h>

#include "check.h"
#include "ingest_args.h"

#define ARGV(...) ((char *[]){"e3-ingest", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"e3-ingest", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(args, err, ...) ingest_args_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (args), (err))

static struct ingest_args args;
static char err[INGEST_ERRBUF_LEN];

static void refused(int rc, const char *reason) {
    CHECK_EQ_INT(rc, INGEST_ERR);
    if (!strstr(err, reason)) {
        fprintf(stderr, "error %s does not name %s\n", err, reason);
        exit(1);
    }
}

int main(void) {
    CHECK_EQ_INT(PARSE(&args, err, "--listen", "127.0.0.1:50051", "--backend", "unix:/tmp/c.sock"), INGEST_OK);
    CHECK_EQ_INT(args.listen_count, 1);
    CHECK(strcmp(args.listen[0], "127.0.0.1:50051") == 0);
    CHECK_EQ_INT(args.port, 50051);
    CHECK(strcmp(args.backend, "unix:/tmp/c.sock") == 0);
    CHECK(args.tls_cert[0] == '\0');
    CHECK_EQ_INT(args.rollup_flush_ms, 1000);
    CHECK_EQ_INT(args.tail_items, 0);
    CHECK_EQ_INT(args.tail_window_s, 0);

    CHECK_EQ_INT(PARSE(&args, err, "--listen", "127.0.0.1:7", "--listen", "[::1]:7", "--backend", "unix:s",
                       "--tls-cert", "c.pem", "--tls-key", "k.pem"), INGEST_OK);
    CHECK_EQ_INT(args.listen_count, 2);
    CHECK(strcmp(args.listen[1], "[::1]:7") == 0);
    CHECK(strcmp(args.tls_cert, "c.pem") == 0 && strcmp(args.tls_key, "k.pem") == 0);
    CHECK_EQ_INT(PARSE(&args, err, "--listen", "localhost:0", "--backend", "unix:s"), INGEST_OK);
    CHECK_EQ_INT(args.port, 0);
    CHECK_EQ_INT(args.parent_pid, 0);
    CHECK_EQ_INT(PARSE(&args, err, "--help"), INGEST_HELP);
    CHECK_EQ_INT(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--parent-pid", "4242"), INGEST_OK);
    CHECK_EQ_INT(args.parent_pid, 4242);
    CHECK_EQ_INT(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--rollup-flush-ms", "250"), INGEST_OK);
    CHECK_EQ_INT(args.rollup_flush_ms, 250);
    CHECK_EQ_INT(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--rollup-flush-ms", "10"), INGEST_OK);
    CHECK_EQ_INT(args.rollup_flush_ms, 10);
    CHECK_EQ_INT(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--rollup-flush-ms", "60000"), INGEST_OK);
    CHECK_EQ_INT(args.rollup_flush_ms, 60000);
    CHECK_EQ_INT(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-items", "200", "--tail-window-s",
                       "10"), INGEST_OK);
    CHECK_EQ_INT(args.tail_items, 200);
    CHECK_EQ_INT(args.tail_window_s, 10);
    CHECK_EQ_INT(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-items", "100000",
                       "--tail-window-s", "600"), INGEST_OK);
    CHECK_EQ_INT(args.tail_items, 100000);
    CHECK_EQ_INT(args.tail_window_s, 600);
    CHECK_EQ_INT(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-items", "0", "--tail-window-s",
                       "0"), INGEST_OK);
    CHECK_EQ_INT(args.tail_items, 0);
    CHECK_EQ_INT(args.tail_window_s, 0);

    refused(PARSE(&args, err, "--backend", "unix:s"), "--listen");
    refused(PARSE(&args, err, "--listen", "127.0.0.1:1"), "--backend");
    refused(PARSE(&args, err, "--listen", "127.0.0.1", "--backend", "unix:s"), "--listen 127.0.0.1");
    refused(PARSE(&args, err, "--listen", "127.0.0.1:70000", "--backend", "unix:s"), "--listen");
    refused(PARSE(&args, err, "--listen", "127.0.0.1:-1", "--backend", "unix:s"), "--listen");
    refused(PARSE(&args, err, "--listen", ":1", "--backend", "unix:s"), "--listen");
    refused(PARSE(&args, err, "--listen", "[::1:1", "--backend", "unix:s"), "--listen");
    refused(PARSE(&args, err, "--listen", "a:1", "--listen", "b:2", "--backend", "unix:s"), "same port");
    refused(PARSE(&args, err, "--listen", "a:0", "--listen", "b:0", "--backend", "unix:s"), "port 0");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "127.0.0.1:2"), "unix:PATH");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:"), "unix:PATH");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tls-cert", "c.pem"), "--tls-key");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--port", "1"), "unknown option --port");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend"), "--backend needs a value");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--parent-pid", "0"), "--parent-pid 0");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--parent-pid", "12x"), "--parent-pid 12x");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--parent-pid"), "--parent-pid (missing)");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--rollup-flush-ms", "9"),
            "--rollup-flush-ms 9: expected milliseconds from 10 to 60000");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--rollup-flush-ms", "60001"),
            "--rollup-flush-ms 60001");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--rollup-flush-ms", "1s"),
            "--rollup-flush-ms 1s");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--rollup-flush-ms", ""),
            "--rollup-flush-ms :");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--rollup-flush-ms"),
            "--rollup-flush-ms (missing)");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-items", "100001"),
            "--tail-items 100001: expected a count from 0 to 100000");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-items", "-1"), "--tail-items -1");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-items", "10k"), "--tail-items 10k");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-items", ""), "--tail-items :");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-items"), "--tail-items (missing)");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-window-s", "601"),
            "--tail-window-s 601: expected seconds from 0 to 600");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-window-s", "-1"),
            "--tail-window-s -1");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-window-s", "10s"),
            "--tail-window-s 10s");
    refused(PARSE(&args, err, "--listen", "a:1", "--backend", "unix:s", "--tail-window-s"),
            "--tail-window-s (missing)");
    refused(PARSE(&args, err, "--listen", "a:1", "--listen", "a:1", "--listen", "a:1", "--listen", "a:1",
                  "--listen", "a:1", "--listen", "a:1", "--listen", "a:1", "--listen", "a:1", "--listen", "a:1",
                  "--backend", "unix:s"), "at most 8");
    return 0;
}
