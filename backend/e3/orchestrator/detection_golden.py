"""Golden cases for the C++ port of the SmartNIC trouble detector (agents/e3-ingest/src/detector.cc).

The compiled ingest front judges SmartNIC heartbeats itself (docs/controller-scale-out.md), so it must give
the detections of e3.orchestrator.detection's `Detector`, bit for bit, for any sequence of calls. This module
is the contract: `golden_case(seed, policy)` builds a deterministic pseudo-random sequence of calls for five
SmartNIC nodes and a host, interleaved (`observe` of a heartbeat, fed as DataplaneOrchestrator.observe feeds
it: t = timestamp_unix_ns / 1e9; `cool_down`, as after a decided migration and at other times; `forget`), runs
it through the real `Detector` and records each call with what came of it: the detector's node count, and for
an observe its detection (kind, node id, t, instance id, and the detail as the text `detail_text` gives:
`json.dumps(detail, sort_keys=True)`, Python's float repr and `round()` included). agents/e3-ingest's
test_detector replays the calls through the C++ Detector and compares; tests/setup/
test_detection_golden_current.py fails when this output no longer matches the checked-in fixture, i.e. when a
Python rule changed and the C++ port was not told.

The sequences hold what the rules treat specially. Starvation: standing queues on an under-utilised link and
at line rate, queues at and around the threshold and the release level (the latch), a node's first heartbeat,
an equal, a one-nanosecond-later and an older timestamp, counter resets, counters past 2**63 (uint64 on the
wire), a link rate of 0. Overload: warm-ups, idle instances (fewer requests than `min_requests`, an execution
time of 0 or less), slowdowns above the deviation but within the noise floor with and without a queue in the
window, slowdowns between the clear and the trigger level (the latch holds), instances missing for a heartbeat
or replaced by new ones, an id twice in one heartbeat, twin instances with the same figures (a ratio tie: the
first in the heartbeat wins), both kinds completing in one heartbeat (starvation is reported; the overload is
not, and is then cooling down). Both: cool-downs, own and the caller's, nodes forgotten and coming back, a host
(ignored), instance ids JSON escapes (quotes, backslashes, control and non-ASCII characters) in an order their
sort changes, and a few non-finite figures. `CASES` runs the default policy and three others (short and long
windows, a short warm-up, short or no cool-down, edge thresholds). `scripted_case` adds, call by call, the edges
a random sequence hits by chance only (a comparison's two sides equal, a new id twice, counters crossing 2**63);
`_rounds` edge cases of `round()`; `_policy_checks` the policies `DetectionPolicy` refuses.

It imports only e3.orchestrator.detection and the standard library: e3.orchestrator stays pure
(tests/test_architecture.py).

Regenerate the fixture (from backend/):
    python -m e3.orchestrator.detection_golden ../agents/e3-ingest/tests/golden/detection.json
"""

import json
import math
import random
import sys
from dataclasses import asdict
from pathlib import Path

from e3.orchestrator.detection import SMARTNIC, Detection, DetectionPolicy, Detector, InstanceSample, NodeSample

FIXTURE = "agents/e3-ingest/tests/golden/detection.json"  # from the repository's root
COMMAND = f"python -m e3.orchestrator.detection_golden ../{FIXTURE}"  # from backend/
# (seed, the policy's fields that are not the default's): the default policy in most cases.
CASES = (
    (1, {}),
    (2, {}),
    (3, {}),
    (4, dict(window=2, warmup_heartbeats=3, cooldown_s=0.5)),
    (5, dict(window=5, queue_threshold=16, queue_clear=0, bandwidth_util_max=1.0, overload_deviation=0.5,
             overload_clear=0.0, ema_alpha=1.0, min_requests=1, warmup_heartbeats=4, cooldown_s=0.25,
             overload_floor_us=0.0, overload_queue_floor=1)),
    (6, dict(window=1, queue_threshold=9, queue_clear=2, bandwidth_util_max=0.6, overload_deviation=0.15,
             overload_clear=0.05, ema_alpha=0.3, min_requests=3, warmup_heartbeats=1, cooldown_s=0.0,
             overload_floor_us=2.5, overload_queue_floor=7)),
)
_NS = 1_000_000_000
_BASE_S = 1_795_780_800  # 2026-11-27T12:00:00+00:00
_PERIOD_NS = 50_000_000  # the agents' heartbeat period
_U64 = (1 << 64) - 1
# Calls per case, over the six nodes: more under the default policy (its warm-up of 20 heartbeats and cool-down of
# 5 s take most of a node's heartbeats); the fixture stays under 800 KB.
_STEPS, _STEPS_OTHER_POLICY = 480, 260
# Instance ids per node (a list: a node's instances, in their usual heartbeat order). nic-1's first two are
# twins (the same figures in every heartbeat); nic-2's need JSON escapes and sort in another order.
_INSTANCES = {
    "nic-0": ["kvs-0", "nat-0"],
    "nic-1": ["fw-a", "fw-b", "lb-1"],
    "nic-2": ["zeta", 'kv"q\\x', "caf\u00e9-\u2603", "\U0001f600\x01\x7f"],
    "nic-3": ["ids-0"],
    "nic-4": ["w-0", "w-1", "w-2"],
    "host-0": ["db-0", "db-1"],
}
_LINKS = {"nic-0": 10_000.0, "nic-1": 25_000.0, "nic-2": 10_000, "nic-3": 100.0, "nic-4": 40_000.0, "host-0": 100_000.0}
# Where the byte counters start: past 2**63 soon (nic-0), near 2**64 (nic-3), wrapping (nic-4); else about 1 GB.
_COUNTERS_FROM = {"nic-0": (1 << 63) - (1 << 31), "nic-3": _U64 - (1 << 38), "nic-4": _U64 - (1 << 35)}
_SCALES = (0.8, 1.3, 2.9, 12.5, 40.0, 210.0, 850.0)  # an instance's usual execution time is one of these, about


def detail_text(detail: dict) -> str:
    """A detection's detail as the fixture holds it, and as the C++ Detection's detail_json is written."""
    return json.dumps(detail, sort_keys=True)


def _expect(found: Detection | None) -> dict | None:
    if found is None:
        return None
    return dict(kind=found.kind, node_id=found.node_id, t=found.t, instance_id=found.instance_id,
                detail=detail_text(found.detail))


class _Instance:
    """One instance as the sequence drives it: its usual execution time, what it is doing, the agent's EMA."""

    def __init__(self, rng: random.Random, iid: str):
        self.iid = iid
        self.usual = rng.choice(_SCALES) * rng.uniform(0.9, 1.1)
        self.ema = self.usual
        self.regime, self.left = "steady", rng.randrange(3, 30)

    def next_regime(self, rng: random.Random, window: int) -> None:
        self.regime = rng.choices(("steady", "over", "mild", "idle", "wobble", "faster"), (40, 22, 10, 10, 12, 6))[0]
        self.left = rng.randrange(max(1, window - 1), window + 6) if self.regime == "over" else rng.randrange(2, 16)

    def figures(self, rng: random.Random, policy: DetectionPolicy) -> tuple[float, int]:
        """(exec time µs, requests) for this heartbeat."""
        requests = rng.randrange(max(policy.min_requests, 2), 600) if rng.random() < 0.95 else policy.min_requests
        dev, clear = policy.overload_deviation, policy.overload_clear
        if self.regime == "idle":
            shape = rng.random()
            if shape < 0.5:  # fewer requests than judged (0, or one request's time)
                return (self.ema if rng.random() < 0.5 else self.usual * rng.uniform(0.5, 3.0)), \
                    rng.randrange(0, policy.min_requests)
            return rng.choice((0.0, 0.0, -0.0, -1.5)), requests  # requests, but no execution time
        if self.regime == "over":
            factor = 1.0 + dev * rng.uniform(1.05, 4.0)
        elif self.regime == "mild":  # above the clear level, below the trigger: the latch holds
            factor = 1.0 + rng.uniform(clear, dev) if dev > clear else 1.0
        elif self.regime == "wobble":  # above the deviation by a fraction of a microsecond (cheap services)
            factor = 1.0 + dev * rng.uniform(1.01, 1.6)
            if self.usual > 2.0:
                factor = 1.0 + rng.uniform(-0.03, 0.03)
        elif self.regime == "faster":
            factor = rng.uniform(0.4, 0.95)
        else:
            factor = 1.0 + rng.uniform(-0.04, 0.04)
        ex = self.usual * factor
        if rng.random() < 0.75:  # most agents' figures are short decimals, some full doubles
            ex = round(ex, rng.randrange(2, 6)) or ex
        return ex, requests

    def sample(self, rng: random.Random, policy: DetectionPolicy, figures: tuple[float, int] | None = None):
        """This heartbeat's InstanceSample; `figures` (a twin's) instead of drawing them."""
        if self.left <= 0:
            self.next_regime(rng, policy.window)
        self.left -= 1
        ex, requests = figures if figures is not None else self.figures(rng, policy)
        if requests and 0 < ex < math.inf:
            self.ema += (ex - self.ema) / 8
        share = rng.choice((round(rng.random() * 0.5, 3), round(rng.random() * 0.5, 3), rng.random(), 0.0, 1e-05, 0.25))
        ema = round(self.ema, 4)
        odd = rng.random() if figures is None else 1.0  # (twins keep the same figures)
        if odd < 0.002:  # figures the intake refuses; the detector must still agree
            ex = rng.choice((math.nan, math.inf))
        elif odd < 0.004:
            requests = _U64  # uint64 on the wire
        elif odd < 0.02:  # only in the detail: json's NaN and Infinity
            ema, share = rng.choice(((math.inf, math.nan), (math.nan, -math.inf)))
        return InstanceSample(self.iid, ex, ema, share, requests)


class _Node:
    """A node's agent as the sequence drives it: its clock, byte counters, queue and instances."""

    def __init__(self, rng: random.Random, node_id: str):
        self.node_id = node_id
        self.kind = "host" if node_id.startswith("host") else SMARTNIC
        self.ts = (_BASE_S + len(node_id)) * _NS + rng.randrange(0, _NS)
        start = _COUNTERS_FROM.get(node_id, 1 << 30)
        self.rx, self.tx = start + rng.randrange(0, 1 << 30), start + rng.randrange(0, 1 << 30)
        self.link = _LINKS[node_id]
        self.instances = [_Instance(rng, iid) for iid in _INSTANCES[node_id]]
        if node_id == "nic-1":
            self.instances[1].usual = self.instances[0].usual
        self.queue, self.left = "calm", rng.randrange(2, 10)
        self.fresh = 0  # ids of replacement instances

    def next_queue(self, rng: random.Random, window: int) -> None:
        self.queue = rng.choices(("calm", "waiting", "standing", "line", "edge", "flicker"), (30, 14, 24, 12, 12, 8))[0]
        self.left = rng.randrange(window, window + 8) if self.queue in ("standing", "line") else rng.randrange(1, 10)

    def queue_and_util(self, rng: random.Random, p: DetectionPolicy) -> tuple[int, float]:
        if self.left <= 0:
            self.next_queue(rng, p.window)
            if self.queue == "standing" and rng.random() < 0.3:  # and its instances slow down with it
                for inst in self.instances:
                    inst.regime, inst.left = "over", self.left
            if self.queue == "standing" and self.node_id == "nic-0":  # its counters cross 2**63 in the streak
                self.rx, self.tx = (1 << 63) - rng.randrange(1, 1 << 25), (1 << 63) - rng.randrange(1, 1 << 24)
        self.left -= 1
        thr, under = p.queue_threshold, rng.uniform(0.02, 0.97) * p.bandwidth_util_max
        line = p.bandwidth_util_max + rng.uniform(0.001, 0.2)
        if self.queue == "calm":
            return rng.randrange(0, min(4, p.queue_clear + 1)), rng.uniform(0.0, 0.7)
        if self.queue == "waiting":
            return rng.randrange(p.queue_clear + 1, thr), under
        if self.queue == "standing":
            q = rng.choice((thr, thr + rng.randrange(0, 400), thr + rng.randrange(0, 40), 4_294_967_295))
            return q, under if rng.random() < 0.93 else line
        if self.queue == "line":
            return thr + rng.randrange(0, 300), line if rng.random() < 0.9 else under
        if self.queue == "edge":
            return rng.choice((thr - 1, thr, p.queue_clear, p.queue_clear + 1, 0)), rng.choice((under, line))
        return rng.choice((thr + rng.randrange(0, 50), rng.randrange(0, thr))), under  # flicker

    def heartbeat(self, rng: random.Random, p: DetectionPolicy) -> NodeSample:
        """The next heartbeat."""
        q, util = self.queue_and_util(rng, p)
        event = rng.random()
        if event < 0.02:  # older than the latest: not stored as the latest by the agent's clock
            return self._sample(rng, p, self.ts - rng.randrange(1, 200_000_000), q, self.rx, self.tx, self.link)
        if event < 0.035:
            return self._sample(rng, p, self.ts, q, self.rx, self.tx, self.link)  # the same timestamp
        if event < 0.045:
            step = rng.choice((1, 100, 1_000))  # one ns later: usually the same double, sometimes the next
        elif event < 0.095:
            step = rng.randrange(1, 8) * _NS + rng.randrange(0, _PERIOD_NS)  # a silence: cool-downs pass
        else:
            step = _PERIOD_NS + rng.randrange(-5_000_000, 5_000_000)
        self.ts += step
        busier = int(util * self.link * 1e6 / 8 * min(step, _PERIOD_NS) / _NS)
        other = int(busier * rng.uniform(0.0, 1.0))
        rx_step, tx_step = (busier, other) if rng.random() < 0.5 else (other, busier)
        if rng.random() < 0.015:  # an agent restart: counters from about 0 (sometimes one of the two only)
            self.rx = rng.randrange(0, 10_000)
            self.tx = rng.randrange(0, 10_000) if rng.random() < 0.7 else self.tx + tx_step
        elif self.rx + rx_step > _U64 or self.tx + tx_step > _U64:  # wrapped: the agent would have restarted
            self.rx, self.tx = rx_step, tx_step
        else:
            self.rx, self.tx = self.rx + rx_step, self.tx + tx_step
        link = 0.0 if rng.random() < 0.015 else self.link  # 0: the link rate unknown
        return self._sample(rng, p, self.ts, q, self.rx, self.tx, link)

    def _sample(self, rng: random.Random, p: DetectionPolicy, ts: int, q: int, rx: int, tx: int, link) -> NodeSample:
        for k, inst in enumerate(self.instances):
            if rng.random() < 0.002 and not (self.node_id == "nic-1" and k < 2):  # replaced by a new instance
                self.fresh += 1
                self.instances[k] = _Instance(rng, f"{inst.iid.split('~')[0]}~{self.fresh}")
        samples = []
        for k, inst in enumerate(self.instances):
            if self.node_id == "nic-1" and k == 1:  # the twin: the same figures as the first
                first = samples[0] if samples else None
                if first is not None:
                    samples.append(inst.sample(rng, p, (first.exec_time_us, first.requests_completed)))
                continue
            if rng.random() < 0.01 and not (self.node_id == "nic-1" and k == 0):  # missing from this heartbeat
                continue
            samples.append(inst.sample(rng, p))
        if self.node_id == "nic-1" and len(samples) >= 2 and rng.random() < 0.5:
            samples[0], samples[1] = samples[1], samples[0]  # the twins in the other order: the other one wins
        shape = rng.random()
        others = samples if self.node_id != "nic-1" else [i for i in samples if i.instance_id not in ("fw-a", "fw-b")]
        if shape < 0.1:
            rng.shuffle(samples)
        elif shape < 0.13 and others:  # an id twice in one heartbeat (not a twin's: they stay twins)
            twice = rng.choice(others)
            ex, requests = self.instances[0].figures(rng, p)
            samples.insert(rng.randrange(0, len(samples) + 1),
                           InstanceSample(twice.instance_id, ex, twice.exec_time_ema_us, rng.random(), requests))
        elif shape < 0.136:  # a new instance, twice in its first heartbeat (no baseline yet: the last one's is kept)
            k = rng.randrange(2 if self.node_id == "nic-1" else 0, len(self.instances))
            self.fresh += 1
            inst = self.instances[k] = _Instance(rng, f"{self.instances[k].iid.split('~')[0]}~{self.fresh}")
            inst.regime, inst.left = "steady", 30
            for _ in range(2):
                samples.insert(rng.randrange(0, len(samples) + 1), inst.sample(rng, p))
        t = ts / 1e9  # as DataplaneOrchestrator.observe divides timestamp_unix_ns (the int made a float first)
        return NodeSample(self.node_id, t, q, rx, tx, link, tuple(samples), self.kind)


def _instances_json(instances) -> list[list]:
    return [[i.instance_id, i.exec_time_us, i.exec_time_ema_us, i.cpu_share, i.requests_completed] for i in instances]


class _Calls:
    """A Detector and the record of the calls made on it (the ops of a case, see `golden_case`)."""

    def __init__(self, policy: DetectionPolicy):
        self.detector = Detector(policy)
        self.ops: list[dict] = []

    def observe(self, s: NodeSample) -> Detection | None:
        found = self.detector.observe(s)
        self.ops.append(dict(op="observe", node=s.node_id, kind=s.kind, t=s.t, queue=s.queue_length, rx=s.rx_bytes,
                             tx=s.tx_bytes, mbps=s.bandwidth_mbps, instances=_instances_json(s.instances),
                             size=len(self.detector), expect=_expect(found)))
        return found

    def cool_down(self, node_id: str, t: float) -> None:
        self.detector.cool_down(node_id, t)
        self.ops.append(dict(op="cool_down", node=node_id, t=t, size=len(self.detector)))

    def forget(self, node_id: str) -> None:
        self.detector.forget(node_id)
        self.ops.append(dict(op="forget", node=node_id, size=len(self.detector)))


def golden_case(seed: int, policy: DetectionPolicy | None = None, steps: int = _STEPS) -> dict:
    """One case: {"name", "policy", "ops"}. An op is {"op": "observe", node, kind, t, queue, rx, tx, mbps (the
    NodeSample's node_id, kind, t, queue_length, rx_bytes, tx_bytes, bandwidth_mbps), instances: [[instance_id,
    exec_time_us, exec_time_ema_us, cpu_share, requests_completed]], size, expect: null | {kind, node_id, t,
    instance_id, detail}}, {"op": "cool_down", node, t, size} or {"op": "forget", node, size}; `size` is
    len(detector) after the call."""
    policy = policy or DetectionPolicy()
    rng = random.Random(seed)
    calls = _Calls(policy)
    nodes = [_Node(rng, node_id) for node_id in _INSTANCES]
    last_t = {node.node_id: node.ts / 1e9 for node in nodes}
    for k in range(steps):
        draw = rng.random()
        if k >= len(nodes) and draw < 0.02:  # the caller's decision at some time, for any node (or an unknown one)
            node_id = rng.choice([*last_t, "nic-9"])
            t = last_t.get(node_id, _BASE_S + 0.5)
            calls.cool_down(node_id, t + rng.choice((0.0, rng.uniform(-2.0, 3.0), -policy.cooldown_s)))
            continue
        if k >= len(nodes) and draw < 0.032:  # a node went down or left (or one never seen)
            calls.forget(rng.choice([*last_t, "nic-9"]))
            continue
        node = nodes[k] if k < len(nodes) else rng.choices(nodes, (5, 5, 5, 5, 5, 1))[0]
        sample = node.heartbeat(rng, policy)
        trouble = node.queue == "standing" or any(inst.regime == "over" for inst in node.instances)
        if trouble and rng.random() < 0.08 and (sample.t - policy.cooldown_s) + policy.cooldown_s == sample.t:
            calls.cool_down(node.node_id, sample.t - policy.cooldown_s)  # quiet until this very heartbeat
        found = calls.observe(sample)
        last_t[node.node_id] = sample.t
        if found is not None and rng.random() < 0.6:  # a decided migration, as DataplaneOrchestrator._handle
            calls.cool_down(found.node_id, found.t)
    return dict(name=f"seed {seed}", policy=asdict(policy), ops=calls.ops)


SCRIPTED_POLICY = dict(window=2, warmup_heartbeats=1, cooldown_s=0.5)


def scripted_case() -> dict:
    """The edges a random sequence hits by chance only, each on a node of its own (window 2, warm-up 1, cool-down
    0.5 s): a comparison's two sides equal (an execution time exactly the baseline x 1.2 or x 1.1, a utilisation of
    exactly 0.8, a queue of exactly `overload_queue_floor`, exactly `min_requests` requests, a heartbeat exactly at
    the end of a cool-down, its own or the caller's), a new instance twice in its first heartbeat, counters crossing
    2**63 and at 2**64 - 1, and a node forgotten and back."""
    calls = _Calls(DetectionPolicy(**SCRIPTED_POLICY))

    def hb(node: str, t: float, q: int, rx: int, tx: int, *instances: tuple, mbps: float = 10_000.0,
           kind: str = SMARTNIC) -> None:
        calls.observe(NodeSample(node, t, q, rx, tx, mbps,
                                 tuple(InstanceSample(iid, ex, ex, 0.5, n) for iid, ex, n in instances), kind))

    mb = 1_000_000
    # a new id twice: the baseline is the second one's (20), so 22 is not 20% above it
    hb("twice", 100.0, 0, 0, 0, ("x", 10.0, 5), ("x", 20.0, 5))
    hb("twice", 100.05, 0, 0, 0, ("x", 22.0, 5))
    hb("twice", 100.1, 0, 0, 0, ("x", 22.0, 5))
    # 12.0 == 10.0 * 1.2: not above it; then 12 is below the baseline learnt (10.2 x 1.2)
    for t, ex in ((100.0, 10.0), (100.05, 12.0), (100.1, 12.0)):
        hb("equal", t, 0, 0, 0, ("y", ex, 5))
    # exactly min_requests (2) requests: judged, an overload
    for t, ex in ((100.0, 10.0), (100.05, 15.0), (100.1, 15.0)):
        hb("two", t, 0, 0, 0, ("z", ex, 2))
    # the caller's cool-down ends exactly at the heartbeat that completes a standing queue
    calls.cool_down("quiet", 200.0)
    for k, t in enumerate((200.4, 200.45, 200.5)):
        hb("quiet", t, 50, 10**9 + k * mb, 10**9)
    calls.cool_down("quiet", 200.1)  # earlier than the one in force: nothing changes
    # its own cool-down (a starvation at 300.0) ends exactly at the heartbeat that completes an overload
    for k, (t, ex) in enumerate(((299.9, 10.0), (299.95, 10.0), (300.0, 10.0), (300.45, 15.0), (300.5, 15.0))):
        hb("own", t, 50, 10**9 + k * mb, 10**9, ("w", ex, 5))
    # a utilisation of exactly 0.8 (1e9 bytes in 1 s at 10 Gb/s) is not under-utilised; just below it is
    rx = 0
    for t, step in ((1000.0, 0), (1001.0, 10**9), (1002.0, 10**9), (1003.0, 10**9 - 1), (1004.0, 10**9 - 1)):
        rx += step
        hb("line", t, 40, rx, 0)
    # counters crossing 2**63 within a standing queue, then at 2**64 - 1
    top = 1 << 63
    for t, rx, tx in ((50.0, top - 1000, top - 10), (50.05, top + 5 * mb, top + 5), (50.1, top + 10 * mb, top + 6),
                      (50.15, _U64 - 10, _U64 - 10), (50.2, _U64, _U64), (50.25, _U64, _U64)):
        hb("top", t, 40, rx, tx)
    # a cheap service 0.3 us slower: over only while the queue reached overload_queue_floor (4) in the window
    for t, q, ex in ((10.0, 0, 1.0), (10.05, 4, 1.3), (10.1, 0, 1.3), (10.15, 0, 1.3), (10.2, 3, 1.3), (10.25, 3, 1.3)):
        hb("floor", t, q, 0, 0, ("k", ex, 5))
    # latched by an overload, released by an execution time exactly the baseline x 1.1 (not above it): reported again
    for t, ex in ((0.0, 10.0), (0.05, 15.0), (0.1, 15.0), (0.15, 10.0 * 1.1), (0.7, 15.0), (0.75, 15.0)):
        hb("clear", t, 0, 0, 0, ("c", ex, 5))
    # forgotten: it starts afresh (its first heartbeat again, its instance warming up again); a host is not judged
    calls.forget("two")
    for t, ex in ((100.15, 15.0), (100.2, 15.0), (100.25, 15.0)):
        hb("two", t, 0, 0, 0, ("z", ex, 2))
    hb("host", 100.0, 500, 0, 0, ("h", 10.0, 5), kind="host")
    return dict(name="scripted", policy=asdict(calls.detector.policy), ops=calls.ops)


def _rounds(rng: random.Random) -> list[list]:
    """Edge cases of round(x, n): [x, n, round(x, n)]: ties in binary, near-ties, signs, tiny and huge values."""
    xs = [0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, -0.125, 2.675, 1.0005, 0.00015, 0.0005, 0.00045, 0.00005,
          -0.00004, -0.00005, 9.99995, 99999.99995, 1234.56785, 0.30000000000000004, 1.2000000000000002 - 1.0,
          5e-324, 1e-320, 2.2250738585072014e-308, 1e300, -1e300, 1.7976931348623157e308, 4503599627370495.5,
          4503599627370497.0, 9007199254740993.0, 1e16, 1e22, 123456789.12345679, 0.1 + 0.2, 1e-05, 3.14159,
          math.inf, -math.inf, math.nan]
    for _ in range(60):
        xs.append(rng.random() * 10.0 ** rng.randrange(-8, 12))
    for _ in range(60):  # as the detector rounds: a utilisation, a baseline, a deviation
        xs.append(rng.randrange(0, 10**6) / 10**rng.randrange(3, 7) + rng.choice((0.0, 5e-5, 5e-4, -5e-5)))
        xs.append(rng.uniform(0.5, 900.0) / rng.uniform(0.5, 900.0) - 1.0)
    return [[x, n, round(x, n)] for x in xs for n in (0, 1, 3, 4, 6)]


def _policy_checks() -> list[list]:
    """Policies DetectionPolicy checks: [fields that differ from the default, the error (null: valid)]."""
    changes = [dict(), dict(window=0), dict(min_requests=0), dict(warmup_heartbeats=0), dict(queue_clear=-1),
               dict(queue_clear=32), dict(queue_clear=31), dict(queue_threshold=1, queue_clear=0),
               dict(bandwidth_util_max=0.0), dict(bandwidth_util_max=1.0), dict(bandwidth_util_max=1.01),
               dict(bandwidth_util_max=math.nan), dict(overload_clear=0.2), dict(overload_clear=-0.01),
               dict(overload_clear=0.0), dict(cooldown_s=-0.001), dict(cooldown_s=math.nan), dict(ema_alpha=0.0),
               dict(ema_alpha=1.0), dict(ema_alpha=1.5), dict(overload_floor_us=-1.0), dict(overload_floor_us=0.0),
               dict(overload_queue_floor=0), dict(overload_deviation=math.inf)]
    out = []
    for change in changes:
        try:
            DetectionPolicy(**change)
            error = None
        except ValueError as exc:
            error = str(exc)
        out.append([change, error])
    return out


def golden_text(cases=CASES) -> str:
    """The fixture's text: the cases of `cases`, then the scripted one; one call per line, so that a change shows
    as a readable diff."""
    def dump(value) -> str:
        return json.dumps(value, separators=(",", ":"))

    head = dict(generator=f"{COMMAND} (backend/e3/orchestrator/detection_golden.py); do not edit",
                default_policy=asdict(DetectionPolicy()))
    parts = ["{" + dump(head)[1:-1] + ",", f'"rounds":{dump(_rounds(random.Random(0)))},',
             f'"policy_checks":{dump(_policy_checks())},', '"cases":[']
    texts = []
    made = [golden_case(seed, DetectionPolicy(**changes), _STEPS_OTHER_POLICY if changes else _STEPS)
            for seed, changes in cases]
    for case in made + [scripted_case()]:
        texts.append(f'{{"name":{dump(case["name"])},"policy":{dump(case["policy"])},"ops":[\n'
                     + ",\n".join(map(dump, case["ops"])) + "\n]}")
    return "\n".join(parts) + "\n" + ",\n".join(texts) + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    """python -m e3.orchestrator.detection_golden OUT.json: write the fixture (`golden_text()`) to OUT.json."""
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) != 1:
        print(f"usage (from backend/): python -m e3.orchestrator.detection_golden OUT.json   (the fixture: {FIXTURE})",
              file=sys.stderr)
        return 2
    Path(args[0]).write_text(golden_text(), encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
