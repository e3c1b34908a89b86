"""Golden heartbeats for the C++ quick check (agents/e3-ingest/src/heartbeat_check.cc).

The compiled ingest front must accept without Python only what the controller's quick check accepts
(docs/controller-scale-out.md, section 2). This module is the contract: `corpus()` builds a deterministic set
of Heartbeat messages around every bound (each field of e3.heartbeat_record at, just inside and just outside
its bounds, NaN, infinities, -0.0, unknown enum values; timestamps at the edges of the quick window and of
heartbeat_problem's, relative to the fixed WALL_NS; 0 to 2 x MAX_INSTANCES_PER_HEARTBEAT instances; instance
ids empty, at and over MAX_ID_CHARS, with every ASCII control character, non-ASCII printable or not), plus
seeded random mixes of those values, and records for each the serialized message with Python's verdicts:

  quick    what the real `HeartbeatIntake.accept` (controller.heartbeat_intake, the compiled hot path) decided
           by its quick check: true when it did not ask `agents.heartbeat_problem` about the heartbeat. The
           intake runs with one registered node (the messages' node_id) and a wall clock fixed at WALL_NS,
           anew for each message; its `doubted` count says whether accept asked.
           Each verdict is taken on the message as parsed back from its bytes,
           i.e. what the front will see.
  problem  agents.heartbeat_problem's reason at WALL_NS (as accept computes `now`), or null. It is checked
           against accept's outcome (refused with that reason, or accepted), and a heartbeat the quick check
           passes with a problem stops the generation: Python's quick check would be looser than its rules.

agents/e3-ingest's test_heartbeat_check parses each message with the C++ protobuf classes and compares
ingest::heartbeat_quick_ok with `quick`; tests/setup/test_heartbeat_golden_current.py fails when this output
no longer matches the checked-in corpus, i.e. when a bound or a rule changed and the C++ side was not told.

The corpus, one heartbeat per line after '#' comments, fields separated by one space:
    NAME WALL_NS QUICK HEX PROBLEM
NAME: a unique case name without spaces; WALL_NS: the controller's wall clock, ns since the Unix epoch; QUICK:
1 or 0; HEX: the serialized Heartbeat, lowercase hex; PROBLEM (the rest of the line): JSON, null or a string.

Regenerate (from backend/): python -m e3.heartbeat_golden ../agents/e3-ingest/tests/golden/heartbeats.txt
"""

import json
import math
import random
import struct
import sys
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone

from google.protobuf.descriptor import FieldDescriptor

from e3.controller.agent_hub import TrackedNode
from e3.controller.heartbeat_intake import _MARGIN_NS, _NS, HeartbeatIntake, heartbeat_dict
from e3.generated_files import write_main
from e3.heartbeat_record import INSTANCE_FIELDS, NODE_FIELDS, Choice, Count, Number, RecordField
from e3.rpc.pb import agent_pb2
from e3.services import agents

FIXTURE = "agents/e3-ingest/tests/golden/heartbeats.txt"  # from the repository's root
COMMAND = "python -m e3.heartbeat_golden ../agents/e3-ingest/tests/golden/heartbeats.txt"  # from backend/
WALL_NS = 1_795_780_800_123_456_789  # 2026-11-27T12:00:00.123456789+00:00: the controller's clock, every case
NODE_ID = uuid.UUID("6f1c2a4e-3b7d-4c89-9a10-52e8d4f0b7a1")  # the one registered node
CLUSTER_ID = uuid.UUID("0b9e4d2c-8a61-4f3e-b7c5-1d2e3f4a5b6c")
AGENT_ID = "golden-agent"
RANDOM_CASES, SEED = 150, 20261127

_INT_RANGES = {  # a protobuf integer type -> the values it holds
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1), FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_INT32: (-2**31, 2**31 - 1), FieldDescriptor.TYPE_INT64: (-2**63, 2**63 - 1),
    FieldDescriptor.TYPE_ENUM: (-2**31, 2**31 - 1),
}
_MESSAGES = {"node": agent_pb2.Heartbeat.DESCRIPTOR, "instance": agent_pb2.InstanceStats.DESCRIPTOR}
# Instance ids that are not ASCII: printable for Python (é, CJK, a combining accent, an emoji) or not (NBSP,
# soft hyphen, line separator, zero-width space, BOM, NEL, a noncharacter, private use, a tag character)
_UNICODE_IDS = ("é", "café-1", "数据-2", "a\u0301", "\U0001F600", "\u00a0", "x\u00ady", "x\u2028y", "\u200b",
                "\ufeffid", "x\x85y", "\uffff", "\ue000", "\U000E0001")


def _bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _int_edges(f: RecordField, group: str) -> list[int]:
    """Values of an integer field around its kind's bounds, within what its protobuf type holds."""
    low, high = _INT_RANGES[_MESSAGES[group].fields_by_name[f.proto].type]
    kind = f.kind
    if isinstance(kind, Count):
        values = [0, 1, kind.max - 1, kind.max, kind.max + 1, high - 1, high, low]
    elif isinstance(kind, Choice):
        values = [*range(-1, len(kind.names) + 3), 2**31 - 1, low]
    else:
        raise TypeError(f"{f.proto}: no edge values for {type(kind).__name__}")
    return sorted({v for v in values if low <= v <= high})


def _float_edges(kind: Number) -> list[float]:
    """Values of a double field around its bounds, NaN (both signs), infinities, -0.0, the smallest and
    largest doubles; each once (by its bits)."""
    values = [0.0, -0.0, 5e-324, -5e-324, 1.0, 1e300, sys.float_info.max, -sys.float_info.max,
              math.inf, -math.inf, math.nan, -math.nan]
    for bound in (kind.low, kind.high):
        if math.isfinite(bound):
            values += [bound, math.nextafter(bound, -math.inf), math.nextafter(bound, math.inf)]
    seen, out = set(), []
    for v in values:
        if _bits(v) not in seen:
            seen.add(_bits(v))
            out.append(v)
    return out


def _edges(f: RecordField, group: str) -> list:
    return _float_edges(f.kind) if isinstance(f.kind, Number) else _int_edges(f, group)


def _text(value) -> str:
    """A value in a case name: repr, with NaN's sign (repr drops it)."""
    if isinstance(value, float) and math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return repr(value)


def _instance(msg, instance_id: str, full: bool = True) -> None:
    """Add an instance: with valid, non-zero values, or (not `full`) only its id (the others 0, not sent)."""
    if not full:
        msg.instances.add(instance_id=instance_id)
        return
    msg.instances.add(instance_id=instance_id, requests_completed=120, exec_time_us=41.5, exec_time_ema_us=40.25,
                      cpu_share=0.125, latency_count=118, latency_avg_us=812.5, latency_p99_us=1504.0)


def _base(ts_ns: int = WALL_NS - _NS, instances: Sequence[str] = ("kv-0", "fw-1"),
          full: bool = True) -> agent_pb2.Heartbeat:
    """A heartbeat within every bound: one second old, every field set to an ordinary value (but the
    instances' when not `full`, which keeps the corpus small where there are many)."""
    hb = agent_pb2.Heartbeat(node_id=str(NODE_ID), timestamp_unix_ns=ts_ns, queue_length=7, rx_bytes=5120,
                             tx_bytes=4096, rx_packets=10, tx_packets=8, cpu_utilization=0.25, power_watts=17.5,
                             power_source=agent_pb2.POWER_SOURCE_RAPL)
    for iid in instances:
        _instance(hb, iid, full)
    return hb


def _timestamp_cases() -> Iterator[tuple[str, agent_pb2.Heartbeat]]:
    """The quick window's ends (1 ms inside heartbeat_problem's) and heartbeat_problem's, each +-1 ns, and
    timestamps that are not times at all."""
    behind, ahead = agents.MAX_AGE_S * _NS, agents.MAX_CLOCK_AHEAD_S * _NS
    offsets = {"wall": 0, "wall-1s": -_NS}
    for name, edge in (("quick_lo", -behind + _MARGIN_NS), ("rule_lo", -behind), ("quick_hi", ahead - _MARGIN_NS),
                       ("rule_hi", ahead)):
        for d in (-1, 0, 1):
            offsets[f"{name}{d:+d}ns"] = edge + d
    offsets["between_lo"], offsets["between_hi"] = -behind + _MARGIN_NS // 2, ahead - _MARGIN_NS // 2
    for name, offset in offsets.items():
        yield f"ts.{name}", _base(WALL_NS + offset)
    for ts in (0, 1, -1, -2**63, 2**63 - 1, _NS):
        yield f"ts={ts}", _base(ts)


def _field_cases() -> Iterator[tuple[str, agent_pb2.Heartbeat]]:
    """Each field at each of its edge values, the rest ordinary: node fields, then instance fields on the
    second of two instances (and on the first, for the values outside the bounds)."""
    for f in NODE_FIELDS:
        for value in _edges(f, "node"):
            hb = _base()
            setattr(hb, f.proto, value)
            yield f"node.{f.proto}={_text(value)}", hb
    for f in INSTANCE_FIELDS:
        for value in _edges(f, "instance"):
            for index in (1, 0):
                if index == 0 and f.problem(value) is None:
                    continue
                hb = _base()
                setattr(hb.instances[index], f.proto, value)
                yield f"instance[{index}].{f.proto}={_text(value)}", hb


def _count_cases() -> Iterator[tuple[str, agent_pb2.Heartbeat]]:
    """Instance counts around MAX_INSTANCES_PER_HEARTBEAT, and a bad id after the most instances allowed."""
    most = agents.MAX_INSTANCES_PER_HEARTBEAT
    for n in (0, 1, most - 1, most, most + 1, 2 * most):
        yield f"instances={n}", _base(instances=[f"i{k}" for k in range(n)], full=n < 4)
    yield f"instances={most},full", _base(instances=[f"i{k}" for k in range(most)])
    for name, last in (("empty", ""), ("tab", "i\t")):
        yield f"instances={most},last_id_{name}", _base(instances=[*(f"i{k}" for k in range(most - 1)), last],
                                                        full=False)
    yield "instances=2,same_id", _base(instances=["twin", "twin"])


def _id_cases() -> Iterator[tuple[str, agent_pb2.Heartbeat]]:
    """Instance ids (as the second instance): lengths around MAX_ID_CHARS, every printable ASCII character,
    every ASCII control character, and non-ASCII ones (printable or not for Python: the C++ check doubts
    them all)."""
    most = agents.MAX_ID_CHARS
    ids = {"empty": "", "1char": "a", "space": " ", "tilde": "~", "spaces": "  x  ", "quote": 'we"ird\\id'}
    for n in (most - 1, most, most + 1, 2 * most):
        ids[f"len{n}"] = "x" * n
    printable = "".join(chr(c) for c in range(0x20, 0x7F))
    for start in range(0, len(printable), most):
        ids[f"ascii_printable_from_{0x20 + start:#04x}"] = printable[start:start + most]
    for c in (*range(0x20), 0x7F):
        ids[f"ascii_control_{c:#04x}"] = f"id{chr(c)}x"
    ids["control_at_end_len64"] = "y" * (most - 1) + "\x1f"
    for i, text in enumerate(_UNICODE_IDS):
        ids[f"unicode{i}_U+{ord(max(text)):04X}"] = text
    ids[f"unicode_len{most}_chars_{2 * most}_bytes"] = "é" * most
    ids[f"unicode_len{most + 1}_chars"] = "é" * (most + 1)
    ids[f"unicode_len{most}_chars_last_nonascii"] = "a" * (most - 1) + "é"
    for name, text in ids.items():
        yield f"id.{name}", _base(instances=["kv-0", text])
    yield "id.first_empty", _base(instances=["", "kv-0"])


def _random_cases() -> Iterator[tuple[str, agent_pb2.Heartbeat]]:
    """Seeded mixes: each field now and then at one of its edge values, a timestamp now and then at a
    window's edge, 0-4 instances (sometimes the most allowed, or one more), ids from the cases above."""
    rng = random.Random(SEED)
    behind, ahead = agents.MAX_AGE_S * _NS, agents.MAX_CLOCK_AHEAD_S * _NS
    ts_edges = [-behind + _MARGIN_NS, -behind + _MARGIN_NS + 1, ahead - _MARGIN_NS, ahead - _MARGIN_NS - 1,
                -behind, ahead, -_NS, 0]
    ids = ["kv-0", "fw-1", "", "x" * agents.MAX_ID_CHARS, "x" * (agents.MAX_ID_CHARS + 1), "a\tb", "~", "é",
           "\u00a0", "id\x7f"]
    node_edges = {f.proto: _edges(f, "node") for f in NODE_FIELDS}
    instance_edges = {f.proto: _edges(f, "instance") for f in INSTANCE_FIELDS}
    for k in range(RANDOM_CASES):
        ts = WALL_NS + (rng.choice(ts_edges) if rng.random() < 0.15 else -rng.randrange(0, 60 * _NS))
        shape = rng.random()
        count = (agents.MAX_INSTANCES_PER_HEARTBEAT + (shape < 0.03) if shape < 0.06 else rng.randrange(0, 5))
        instances = [rng.choice(ids) if rng.random() < 0.08 else f"r{k}-{j}" for j in range(count)]
        hb = _base(ts, instances, full=count < 5)
        for proto, values in node_edges.items():
            if rng.random() < 0.06:
                setattr(hb, proto, rng.choice(values))
        for inst in hb.instances:
            for proto, values in instance_edges.items():
                if rng.random() < 0.03:
                    setattr(inst, proto, rng.choice(values))
        yield f"random{k:03d}", hb


def cases() -> list[tuple[str, bytes]]:
    """Every case's name and serialized Heartbeat, in the corpus's order."""
    out, names = [], set()
    for source in (_timestamp_cases, _field_cases, _count_cases, _id_cases, _random_cases):
        for name, hb in source():
            if " " in name or name in names:
                raise ValueError(f"case name {name!r}: not unique, or has a space")
            names.add(name)
            out.append((name, hb.SerializeToString(deterministic=True)))
    return out


def verdicts(data: bytes) -> tuple[bool, str | None]:
    """Python's verdicts on a serialized Heartbeat at WALL_NS: (quick, problem); see the module's doc."""
    hb = agent_pb2.Heartbeat.FromString(data)
    node = TrackedNode(NODE_ID, CLUSTER_ID, "golden", AGENT_ID, 0.0)
    intake = HeartbeatIntake({NODE_ID: node}, lambda: 1.0, lambda: WALL_NS)
    encoded, rejections = intake.accept(AGENT_ID, [hb])
    quick = intake.doubted == 0
    problem = agents.heartbeat_problem(heartbeat_dict(hb), datetime.fromtimestamp(WALL_NS / _NS, timezone.utc))
    if quick and problem is not None:
        raise AssertionError(f"the quick check passed a heartbeat heartbeat_problem refuses ({problem}): {hb}")
    outcome = [reason for _, _, reason in rejections] or [None]
    if encoded.accepted != (problem is None) or outcome != [problem]:
        raise AssertionError(f"accept's outcome {outcome} is not heartbeat_problem's ({problem})")
    return quick, problem


def corpus() -> str:
    """The text of agents/e3-ingest/tests/golden/heartbeats.txt."""
    lines = [
        "# generated by python -m e3.heartbeat_golden; do not edit",
        f"# (regenerate from backend/: {COMMAND})",
        "# Python's verdicts on each Heartbeat (backend/e3/heartbeat_golden.py says how they are obtained):",
        "# NAME WALL_NS QUICK HEX PROBLEM",
        "# QUICK: 1 when HeartbeatIntake.accept's quick check passed it; PROBLEM: heartbeat_problem's reason "
        "(JSON), or null",
    ]
    for name, data in cases():
        quick, problem = verdicts(data)
        lines.append(f"{name} {WALL_NS} {int(quick)} {data.hex()} {json.dumps(problem)}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the corpus to the path given (argv[0]); usage on a wrong argument count."""
    return write_main(argv, COMMAND, corpus)


if __name__ == "__main__":
    sys.exit(main())
