"""Golden cases for the C++ port of the rollup steps (agents/e3-ingest/src/rollup_steps.cc).

The compiled ingest front keeps the 1 s telemetry rollups and each heartbeat's energy interval itself
(docs/controller-scale-out.md, sections 1-2), so it must follow the rules of e3.rollup.steps and of
e3.energy.ledger's NodeTotals.add exactly. This module is the contract: `golden_case(seed)` builds a
deterministic pseudo-random heartbeat sequence for three nodes, runs it through the real Python classes the
way controller.heartbeat_intake does (the ledger's `add`, then the rollup's `add` with the ledger's interval
and joules), and records the inputs with what came out: each heartbeat's interval and joules, the rows each
`take()` handed over, and their COPY lines (services.telemetry_rollups). agents/e3-ingest's
test_rollup_steps replays the inputs through the C++ classes and compares; tests/setup/
test_rollup_golden_current.py fails when this output no longer matches the checked-in fixture, i.e. when a
Python rule changed and the C++ port was not told.

The sequences hold what the rules treat specially: heartbeats crossing step boundaries (also by one
nanosecond), a late (older) heartbeat, one with an equal timestamp, a counter reset, a silence longer than
the ledger's max interval, a power source change within a step, instances with no requests or in a new
order, ids that COPY must escape, a node registered again under another cluster, and takes at arbitrary
points. `formats` adds edge cases of the text the lines are made of (repr of floats, ISO times, ns -> s).

It lives in e3.services, beside telemetry_rollups, rather than in e3.rollup: the lines are that module's,
and e3.rollup stays pure (it may not import e3.services; tests/test_architecture.py).

Regenerate the fixture (from backend/):
    python -m e3.services.rollup_golden ../agents/e3-ingest/tests/golden/rollup_steps.json
"""

import json
import random
import struct
import sys
import uuid
from dataclasses import asdict
from datetime import datetime, timezone

from e3.energy.ledger import EnergyLedger
from e3.generated_files import write_main
from e3.rollup.steps import RollupSteps
from e3.services.telemetry_rollups import instance_line, node_line

SEEDS = (1, 2, 3)
FIXTURE = "agents/e3-ingest/tests/golden/rollup_steps.json"  # from the repository's root
_NS = 1_000_000_000  # as heartbeat_intake divides
_BASE_S = 1_795_780_800  # 2026-11-27T12:00:00+00:00
_SOURCES = ("rapl", "ipmi", "model", "ipmi-split")
# Two instances per node; some ids need COPY's escapes (backslash, tab; the intake refuses a tab, but
# copy_text must not rely on that), one is not ASCII.
_INSTANCES = (("kv\\primary", "fw-0"), ("nat\tb", "lb-1"), ("café-2", "ids\\x\ty"))
_HEARTBEATS = 60  # per case, over the three nodes (the fixture stays well under 300 KB for three seeds)


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _instances(rng: random.Random, ids: tuple[str, str]) -> list[tuple]:
    """The heartbeat's `used` list as heartbeat_intake builds it: (id, requests, cpu share, exec µs, latency
    count, latency mean µs, latency p99 µs); sometimes one instance only, or in the other order, or idle."""
    order = list(ids)
    shape = rng.random()
    if shape < 0.15:
        order = order[:1] if rng.random() < 0.5 else order[1:]
    elif shape < 0.35:
        order.reverse()
    used = []
    for iid in order:
        if rng.random() < 0.2:  # no requests this heartbeat
            used.append((iid, 0, rng.random() * 0.05, 0.0, 0, 0.0, 0.0))
            continue
        requests = rng.randrange(1, 500)
        lat_n = max(0, requests - rng.randrange(0, 3))
        lat_avg = rng.uniform(5.0, 900.0)
        used.append((iid, requests, rng.random() * 0.6, rng.uniform(1.0, 200.0), lat_n, lat_avg,
                     lat_avg * rng.uniform(1.0, 4.0)))
    return used


class _Node:
    """A node's agent as the sequence drives it: its clock, counters and power source."""

    def __init__(self, rng: random.Random, index: int):
        self.node_id, self.cluster_id = _uuid(rng), _uuid(rng)
        self.ids = _INSTANCES[index]
        self.ts = (_BASE_S + index) * _NS + rng.randrange(0, _NS)
        self.counters = [rng.randrange(0, 1 << 40) for _ in range(4)]  # rx/tx bytes, rx/tx packets
        self.source = _SOURCES[index % 2]


def golden_case(seed: int) -> dict:
    """One case: {"seed", "inputs": ops, "takes": what each take op returned}. An op is a registration
    {"op": "node", node_id, cluster_id}, a heartbeat {"op": "heartbeat", node_id, ts_ns, t (= ts_ns / 1e9 as
    Python divides), watts, source, queue_len, cpu_util, rx/tx bytes/packets, instances: [[id, requests,
    cpu_share, exec_us, lat_n, lat_avg_us, lat_p99_us]], expect: {interval, joules, untaken_rows}} or a
    {"op": "take"}; takes[k] is the k-th take's {untaken_rows (before it), nodes, instances}, each row the
    dataclass's fields plus its COPY `line`."""
    rng = random.Random(seed)
    ledger, rollups = EnergyLedger(), RollupSteps()
    nodes = [_Node(rng, i) for i in range(3)]
    inputs: list[dict] = []
    takes: list[dict] = []
    accounts, steps = {}, {}

    def register(node: _Node) -> None:
        accounts[node.node_id] = ledger.account(node.node_id, node.cluster_id, "type2", "node")
        steps[node.node_id] = rollups.node(node.node_id, node.cluster_id)
        inputs.append(dict(op="node", node_id=node.node_id, cluster_id=node.cluster_id))

    def take() -> None:
        untaken = rollups.untaken_rows
        node_rows, instance_rows = rollups.take()
        takes.append(dict(untaken_rows=untaken,
                          nodes=[dict(asdict(r), line=node_line(r)) for r in node_rows],
                          instances=[dict(asdict(r), line=instance_line(r)) for r in instance_rows]))
        inputs.append(dict(op="take"))

    def heartbeat(node: _Node, ts: int) -> None:
        t = ts / _NS
        watts, source = rng.uniform(60.0, 420.0), node.source
        queue_len, cpu_util = rng.randrange(0, 4096), rng.random()
        rx_bytes, tx_bytes, rx_packets, tx_packets = node.counters
        used = _instances(rng, node.ids)
        account = accounts[node.node_id]
        joules = account.add(t, watts, source, cpu_util, used)  # as heartbeat_intake.accept calls them
        steps[node.node_id].add(t, account.interval, joules, source, watts, queue_len, cpu_util, rx_bytes,
                                tx_bytes, rx_packets, tx_packets, used)
        inputs.append(dict(op="heartbeat", node_id=node.node_id, ts_ns=ts, t=t, watts=watts, source=source,
                           queue_len=queue_len, cpu_util=cpu_util, rx_bytes=rx_bytes, tx_bytes=tx_bytes,
                           rx_packets=rx_packets, tx_packets=tx_packets, instances=[list(u) for u in used],
                           expect=dict(interval=account.interval, joules=joules,
                                       untaken_rows=rollups.untaken_rows)))

    for node in nodes:
        register(node)
    # Where the special heartbeats go (positions in the sequence), drawn once per case.
    late, equal, reset, gap, switch, moved, boundary, tie = rng.sample(range(8, _HEARTBEATS - 4), 8)
    def advance(node: _Node, ts: int) -> None:
        """The node's next heartbeat, at `ts`, its counters grown."""
        node.ts = ts
        node.counters = [c + rng.randrange(0, 5_000_000) for c in node.counters]
        heartbeat(node, ts)

    for k in range(_HEARTBEATS):
        node = nodes[k % 3] if k < 6 else rng.choice(nodes)
        if k == moved:  # its agent registers it again, from another cluster: same steps, counters go on
            node.cluster_id = _uuid(rng)
            register(node)
        if k == reset:  # the agent restarted: its counters start again from about 0
            node.counters = [rng.randrange(0, 1000) for _ in range(4)]
        second_end = (node.ts // _NS + 1) * _NS  # the end of the latest heartbeat's step
        if k == late:  # older than the node's latest, possibly in a step already taken
            heartbeat(node, node.ts - rng.randrange(1, 3 * _NS // 2))
        elif k == equal:
            heartbeat(node, node.ts)
        elif k == switch:  # an IPMI reading came or went: the old source, then the new one, in one step
            advance(node, node.ts + (second_end - node.ts) // 3)
            node.source = next(s for s in _SOURCES if s != node.source)
            advance(node, node.ts + rng.randrange(0, (second_end - node.ts) // 2 + 1))  # 0: the same time
        elif k == boundary:  # one nanosecond before a whole second (a float rounds it up to it), then on it
            advance(node, second_end - 1)
            advance(node, second_end)
        elif k == tie:  # 7812.5 µs into a second exactly: isoformat rounds the half to even
            advance(node, second_end + 7_812_500)
        elif k == gap:  # a silence longer than the ledger's max interval
            advance(node, node.ts + rng.randrange(int(1.2 * _NS), int(3.5 * _NS)))
        else:
            advance(node, node.ts + rng.randrange(20_000_000, 420_000_000))
        if rng.random() < 0.08:
            take()
    take()
    take()  # nothing left: an empty take
    return dict(seed=seed, inputs=inputs, takes=takes)


def _formats(rng: random.Random) -> dict:
    """Edge cases of the lines' pieces: [float, repr], [seconds, isoformat], [ns, ns / 1e9]."""
    floats = [0.0, -0.0, 1.0, -1.0, 0.1, 0.1 + 0.2, 1e-05, 0.0001, 0.00012345, 1e16, 1e15 * 9.999, 1e22, 1e-300,
              5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 123456789012345678.0, 9007199254740993.0,
              1234567890123456.7, 12345678901234567.0, 0.5, 100.0, 1e100, float("inf"), -float("inf"), 3.14159,
              -2.5e-07, 299792458.0, 1795780800.0078125]
    for _ in range(40):
        floats.append(rng.random() * 10.0 ** rng.randrange(-25, 25))
    while len(floats) < 100:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if x == x and abs(x) != float("inf"):
            floats.append(x)
    times = [0.0, 1e-07, 4e-07, 5e-07, 0.5, -1.5, -0.0000004, 1795780800.0, 1795780800.0078125, 1795780800.0234375,
             1795780800.9999996, 1795780800.4999999, 951782400.000001, -50_000_000_000.25, 253402300799.0,
             1709251199.9999995]
    for _ in range(30):
        times.append(_BASE_S + rng.random() * 86400.0 * 400)
    ns = [0, 1, -1, 999_999_999, 1_000_000_000, (1 << 53) - 1, 1 << 53, (1 << 53) + 1, (1 << 63) - 1, -(1 << 63),
          _BASE_S * _NS - 1, _BASE_S * _NS + 1, _BASE_S * _NS + 7_812_500, -_BASE_S * _NS - 1]
    for _ in range(40):
        ns.append(_BASE_S * _NS + rng.randrange(-(1 << 50), 1 << 50))
    return dict(floats=[[x, repr(x)] for x in floats],
                times=[[x, datetime.fromtimestamp(x, timezone.utc).isoformat()] for x in times],
                ns=[[n, n / _NS] for n in ns])


def golden_text(seeds=SEEDS) -> str:
    """The fixture's text: one op or take per line, so that a change shows as a readable diff."""
    def dump(value) -> str:
        return json.dumps(value, separators=(",", ":"))

    ledger = EnergyLedger()
    head = dict(generator="python -m e3.services.rollup_golden (backend/e3/services/rollup_golden.py); do not edit",
                max_interval_s=ledger.max_interval_s, step_s=RollupSteps().step_s)
    parts = ["{" + dump(head)[1:-1] + ",", f'"formats":{dump(_formats(random.Random(0)))},', '"cases":[']
    cases = []
    for seed in seeds:
        case = golden_case(seed)
        cases.append(f'{{"seed":{seed},"inputs":[\n' + ",\n".join(map(dump, case["inputs"])) + '\n],"takes":[\n'
                     + ",\n".join(map(dump, case["takes"])) + "\n]}")
    return "\n".join(parts) + "\n" + ",\n".join(cases) + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    """python -m e3.services.rollup_golden OUT.json: write the golden cases of SEEDS to OUT.json."""
    return write_main(argv, f"python -m e3.services.rollup_golden OUT.json   (the fixture: {FIXTURE})", golden_text)


if __name__ == "__main__":
    sys.exit(main())
