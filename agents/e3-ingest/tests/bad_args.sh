#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# e3-ingest with bad arguments: exit status 2 and a message on stderr naming what is wrong.
binary=$1
fail() { echo "bad_args.sh: $*" >&2; exit 1; }
expect() { # expect WORDS ARGS...: exit 2, and stderr contains WORDS
    words=$1
    shift
    err=$("$binary" "$@" 2>&1 >/dev/null)
    status=$?
    [ "$status" -eq 2 ] || fail "e3-ingest $*: exit $status, want 2"
    case "$err" in *"$words"*) ;; *) fail "e3-ingest $*: stderr '$err' does not say '$words'" ;; esac
}
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
