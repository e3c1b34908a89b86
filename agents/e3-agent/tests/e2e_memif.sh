#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End to end (root; skipped otherwise, exit 77): the host link with the real programs. In a
# throwaway network namespace a real e3-nic (wire port on a veth, host link served on a memif
# socket) and a real e3-agent --memif (no kernel interface on the data path) run without a
# controller. A client on the veth's other end sends an E3 request to the host's IP, to the port
# of the host's pipeline egress node (the first port its stack hands out: nothing is deployed
# without a controller), and gets its error reply back: wire -> NIC -> memif -> host stack ->
# host link -> memif -> NIC -> wire. A host link to no e3-nic is refused with a clear message.
# Both programs stop cleanly on SIGTERM and leave no DPDK runtime directory behind.
# Usage: e2e_memif.sh E3_NIC E3_AGENT
set -u
NIC_BIN=$1 AGENT_BIN=$2
[ "$(id -u)" = 0 ] || { echo "skipped: needs root (network namespaces)"; exit 77; }
command -v ip >/dev/null && command -v python3 >/dev/null || { echo "skipped: needs ip and python3"; exit 77; }
NS=e3t-hl-$$
D=$(mktemp -d /tmp/e3t-hl.XXXXXX)
NICPID= AGPID=
cleanup() {
    [ -n "$AGPID" ] && kill "$AGPID" 2>/dev/null
    [ -n "$NICPID" ] && kill "$NICPID" 2>/dev/null
    wait 2>/dev/null
    ip netns del "$NS" 2>/dev/null
    rm -rf "$D"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$D"/*.err; do echo "--- $f"; cat "$f"; done; exit 1; }
in_ns() { ip netns exec "$NS" "$@"; }

ip netns add "$NS" || { echo "skipped: cannot create a network namespace"; exit 77; }
in_ns ip link set lo up
in_ns ip link add e3t-hl-w0 type veth peer name e3t-hl-p0
in_ns ip link set e3t-hl-w0 up
in_ns ip link set e3t-hl-p0 up
in_ns ip addr add 10.77.0.2/24 dev e3t-hl-p0
COMMON=(--cluster c --controller 127.0.0.1:1 --token x)

# no e3-nic yet: refused, naming the socket
in_ns "$AGENT_BIN" --memif "$D/nic0.sock" --address 10.77.0.1 --server s --file-prefix "$NS-h0" "${COMMON[@]}" \
    >"$D/refused.out" 2>"$D/refused.err" && fail "e3-agent started without e3-nic"
grep -q "cannot connect the host link $D/nic0.sock: is e3-nic running?" "$D/refused.err" || fail "no clear refusal"

# background programs through ip netns exec itself (it execs them: $! is theirs, not a subshell's)
ip netns exec "$NS" "$NIC_BIN" --wire e3t-hl-w0 --memif "$D/nic0.sock" --host-address 10.77.0.1 --address 10.77.0.10 \
    --node s/nic0 --file-prefix "$NS-n" "${COMMON[@]}" --log-level warn >"$D/nic.out" 2>"$D/nic.err" &
NICPID=$!
for _ in $(seq 50); do [ -S "$D/nic0.sock" ] && break; sleep 0.1; done
[ -S "$D/nic0.sock" ] || fail "e3-nic did not serve its host link"
ip netns exec "$NS" "$AGENT_BIN" --memif "$D/nic0.sock" --address 10.77.0.1 --server s --file-prefix "$NS-h" "${COMMON[@]}" \
    >"$D/agent.out" 2>"$D/agent.err" &
AGPID=$!

in_ns python3 - <<'PY' || fail "no reply from the host over the host link"
import socket, struct, sys
MAGIC = 0x45334331
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.77.0.2", 0))
s.settimeout(0.5)
req = struct.pack("!IBBHIQ", MAGIC, 1, 0, 0, 1, 77) + b"GET k"
for _ in range(20):
    s.sendto(req, ("10.77.0.1", 49152))
    try:
        data, src = s.recvfrom(2048)
    except socket.timeout:
        continue
    magic, typ, status, _, inst, rid = struct.unpack("!IBBHIQ", data[:20])
    ok = src[0] == "10.77.0.1" and magic == MAGIC and typ == 2 and rid == 77
    print("reply from %s: type %d status %d %r" % (src[0], typ, status, data[20:]))
    sys.exit(0 if ok else 1)
sys.exit(1)
PY
grep -q "host link: memif to 1 SmartNIC(s)" "$D/agent.err" || fail "no host link line"

kill -TERM "$AGPID"; wait "$AGPID"; rc=$?; AGPID=
[ "$rc" = 0 ] || fail "e3-agent exited $rc"
kill -TERM "$NICPID"; wait "$NICPID"; rc=$?; NICPID=
[ "$rc" = 0 ] || fail "e3-nic exited $rc"
ls -d /var/run/dpdk/"$NS"* 2>/dev/null && fail "DPDK runtime directories left behind"
echo "ok"
