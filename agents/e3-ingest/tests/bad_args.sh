#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# e3-ingest with bad arguments: exit status 2 and a message on stderr naming what is wrong.
binary=$1
. "$(dirname "$0")/../../testing/expect_exit2.sh"
expect "--listen HOST:PORT is required" --backend unix:/tmp/x.sock
expect "unknown option --bogus" --bogus 1
expect "expected HOST:PORT" --listen nowhere --backend unix:/tmp/x.sock
expect "expected unix:PATH" --listen 127.0.0.1:1 --backend 127.0.0.1:2
expect "--rollup-flush-ms 5: expected milliseconds from 10 to 60000" --listen 127.0.0.1:1 --backend unix:/tmp/x.sock \
    --rollup-flush-ms 5
expect "--rollup-flush-ms soon" --listen 127.0.0.1:1 --backend unix:/tmp/x.sock --rollup-flush-ms soon
expect "--tail-items 100001: expected a count from 0 to 100000" --listen 127.0.0.1:1 --backend unix:/tmp/x.sock \
    --tail-items 100001
expect "--tail-window-s 601: expected seconds from 0 to 600" --listen 127.0.0.1:1 --backend unix:/tmp/x.sock \
    --tail-window-s 601
expect "--tail-items many" --listen 127.0.0.1:1 --backend unix:/tmp/x.sock --tail-items many
"$binary" --help | grep -q "usage: e3-ingest" || fail "--help prints no usage"
"$binary" --help | grep -q -- "--tail-items N" || fail "--help does not name --tail-items"
exit 0
