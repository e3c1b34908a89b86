#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# e3-heartbeat-load with bad options or a bad spec: exit status 2 and a message on stderr naming what is wrong.
binary=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/../../testing/expect_exit2.sh"
expect "--spec FILE is required"
expect "--spec FILE is required" --channels 2
expect "unknown option --bogus" --bogus 1
expect "usage: e3-heartbeat-load" --bogus 1
expect "--spec needs a value" --spec
expect "--channels 0: expected a number from 1 to 256" --spec "$dir/x" --channels 0
expect "--channels two" --spec "$dir/x" --channels two
expect "$dir/missing: cannot read it" --spec "$dir/missing"
printf 'e3-heartbeat-load 1\ntarget 127.0.0.1:1\ntoken t\nperiod_ns 50000000\nend_unix_ns 1\nbatch 1 00 0\n' \
    >"$dir/batch-first.spec"
expect "e3-heartbeat-load: $dir/batch-first.spec:6: batch before any stream" --spec "$dir/batch-first.spec"
printf 'target 127.0.0.1:1\n' >"$dir/no-header.spec"
expect "$dir/no-header.spec:1: expected the header" --spec "$dir/no-header.spec"
"$binary" --help | grep -q "usage: e3-heartbeat-load" || fail "--help prints no usage"
exit 0
