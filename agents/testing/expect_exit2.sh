# SPDX-License-Identifier: Apache-2.0
# Sourced by the programs' bad-argument tests (e3-ingest, e3-heartbeat-load): with $binary set, `expect WORDS ARGS...`
# runs it with ARGS and fails the test unless it exits with status 2 and its stderr contains WORDS.
fail() { echo "bad_args.sh: $*" >&2; exit 1; }
expect() {
    words=$1
    shift
    err=$("$binary" "$@" 2>&1 >/dev/null)
    status=$?
    name=$(basename "$binary")
    [ "$status" -eq 2 ] || fail "$name $*: exit $status, want 2"
    case "$err" in *"$words"*) ;; *) fail "$name $*: stderr '$err' does not say '$words'" ;; esac
}
