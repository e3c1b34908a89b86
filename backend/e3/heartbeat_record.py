"""A heartbeat record's fields, defined once: what each is, its bounds, how it is encoded and read back.

An agent sends one `Heartbeat` per node (proto/e3/agent/v1/agent.proto), with one `InstanceStats` per
instance. The controller (controller.heartbeat_intake) checks every field against its bounds (the rules:
`RecordField.problem`, used by services.agents.heartbeat_problem) and writes the accepted record as one JSON
object, each field under its `name`: node_id, ts, the node fields, instances, cluster_id. It is the item of
the `e3:live` "heartbeats" message, the node's value in the Redis hash `e3:latest:<cluster>` (live.channel), and
what the controller's raw tail keeps (controller.raw_tail); `instances` is a JSON array of {"id": ..., one
key per INSTANCE_FIELDS entry}. Postgres stores no record, only 1 s rollups of them (e3.rollup.steps, with
columns of their own).

Readers: live.aggregate.parse_heartbeat (`read_node`, `read_instance`),
api.controller_tail (the raw tail, `public_dict`), and the public APIs' shapes, which name each field by
its `public` name (dotted: nested, e.g. power.watts): schemas.cluster (REST telemetry) and schemas.live
(the live channel), hence the UI's generated types.

Adding a field: the proto; an entry here; the agent (agents/e3-agent: rpc/e3rpc.h, rpc/e3rpc.cc,
src/report.c); the UI (regenerate frontend/openapi.json and its types, then show the field); and, if it
should be kept beyond the raw tail, its sum or maximum in the rollups (e3.rollup.steps, models/telemetry_rollup.py
and a migration). Records published before a field existed lack it: readers take its kind's `missing`
value, and the APIs declare that default unless `always_present`.

Pure and stdlib only: the controller, services, live and the orchestrator import it. The controller's hot
path reads no descriptor per heartbeat: it is compiled once from the source fragments below (`quick_check`,
and each kind's `text`, `json`, ...).
"""

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

POWER_SOURCES = ("rapl", "ipmi", "model")  # agent.proto's PowerSource 1, 2, 3, stored by name
# what a stored or published heartbeat may say: an agent's source, or the controller's share of a whole
# server's IPMI reading given to one of its nodes (e3.energy.server_split)
STORED_POWER_SOURCES = (*POWER_SOURCES, "ipmi-split")


class _Kind(ABC):
    """How a field's value is checked and written. The source fragments are spliced into the controller's
    compiled hot path (controller.heartbeat_intake), so nothing here runs per heartbeat there."""

    type: type  # the value as read back: int | float | str
    missing: object  # what a record without the field reads as

    @abstractmethod
    def problem(self, value) -> str | None:
        """Why the value breaks the rules (completing "<field> ..."), or None."""

    def from_proto(self, value):
        """The value `problem` checks, from the protobuf value."""
        return value

    @abstractmethod
    def quick(self, var: str) -> str:
        """A Python expression, true when `var` (the protobuf value) is within the rules (`_INF`: infinity,
        defined where the code runs)."""

    def text(self, var: str) -> str:
        """A Python expression: the value's text in the live JSON (a number's repr: the
        shortest that reads back the same)."""
        return f"repr({var})"

    def json(self, text: str) -> str:
        """An f-string fragment: the value's JSON, from the variable holding its text."""
        return "{" + text + "}"

    def json_of_value(self, var: str) -> str:
        """An f-string fragment: the value's JSON, straight from the variable holding the protobuf value."""
        return "{" + var + "!r}"


class Count(_Kind):
    """An unsigned protobuf integer that must fit a signed integer of `bits` bits, as its readers and the
    rollups' columns hold it (a larger value would fail their write, so it is refused)."""

    type, missing = int, 0

    def __init__(self, bits: int):
        self.max = 2 ** (bits - 1) - 1

    def problem(self, value: int) -> str | None:
        return None if value <= self.max else "exceeds the stored range"

    def quick(self, var: str) -> str:
        return f"{var} <= {self.max}"


class Number(_Kind):
    """A protobuf double, finite and within [low, high]."""

    type, missing = float, 0.0

    def __init__(self, low: float = 0.0, high: float = math.inf):
        self.low, self.high = low, high

    def problem(self, value: float) -> str | None:
        if math.isfinite(value) and self.low <= value <= self.high:
            return None
        if self.high == math.inf:
            return f"must be a finite number >= {self.low:g}"
        return f"must be within {self.low:g}..{self.high:g}"

    def quick(self, var: str) -> str:
        # NaN fails every comparison; the upper bound keeps infinity out
        if self.high == math.inf:
            return f"{self.low!r} <= {var} < _INF"
        return f"{self.low!r} <= {var} <= {self.high!r}"


class Choice(_Kind):
    """A protobuf enum stored by name: value k names names[k - 1]; 0 (unspecified) and unknown values are
    refused. `missing`: what a record without it reads as."""

    type = str

    def __init__(self, names: Sequence[str], missing: str):
        self.names, self.missing = tuple(names), missing
        upper = [n.upper() for n in names]
        self._reason = f"must be set ({', '.join(upper[:-1])} or {upper[-1]})"

    def problem(self, value: str | None) -> str | None:
        """`value`: the name (from_proto)."""
        return None if value in self.names else self._reason

    def from_proto(self, value: int) -> str | None:
        return self.names[value - 1] if 0 < value <= len(self.names) else None

    def quick(self, var: str) -> str:
        return f"0 < {var} < {len(self.names) + 1}"

    def text(self, var: str) -> str:
        return f"{(None, *self.names)!r}[{var}]"

    def json(self, text: str) -> str:
        return '"{' + text + '}"'  # names are plain identifiers: nothing to escape

    def json_of_value(self, var: str) -> str:
        raise TypeError("an instance field cannot be an enum (its name would be looked up per instance)")


FROM_DOC = "<doc, unit>"  # a description that is the field's own: "<doc>, <unit>"


@dataclass(frozen=True)
class RecordField:
    """One field of the record: a Heartbeat field (NODE_FIELDS) or an InstanceStats one (INSTANCE_FIELDS)."""

    proto: str  # its name in agent.proto (Heartbeat or InstanceStats)
    name: str  # its name in the live JSON (in `instances` for an instance's)
    kind: _Kind  # value type and bounds
    unit: str  # e.g. "µs", "packets", "0..1"
    doc: str  # what it is
    public: str = ""  # its name in the public APIs, dotted when nested (power.watts); "": `name`
    always_present: bool = False  # every record ever stored has it; else old ones lack it (read as missing)
    live: bool = True  # shown in the live channel's node view (schemas.live)
    live_always_sent: bool = False  # node view: sent (null) before the node's first heartbeat, else left out
    api_doc: str | None = FROM_DOC  # its description in the REST telemetry API (None: none)
    live_doc: str | None = FROM_DOC  # its description in the live channel's node view (None: none)

    def __post_init__(self):
        if not (self.name.isidentifier() and self.proto.isidentifier()):
            raise ValueError(f"{self.name!r}: names are identifiers (they are spliced into generated code)")
        if not self.public:
            object.__setattr__(self, "public", self.name)

    def _described(self, text: str | None) -> str | None:
        return f"{self.doc}, {self.unit}" if text is FROM_DOC else text

    @property
    def api_description(self) -> str | None:
        return self._described(self.api_doc)

    @property
    def live_description(self) -> str | None:
        return self._described(self.live_doc)

    @property
    def nested(self) -> bool:
        return "." in self.public

    def problem(self, value) -> str | None:
        """Why `value` (the protobuf value; an enum's by name) breaks the rules, or None."""
        return self.kind.problem(value)


_COUNT32, _COUNT64, _US, _SHARE = Count(32), Count(64), Number(), Number(0.0, 1.0)

NODE_FIELDS = (
    RecordField("queue_length", "queue_len", _COUNT32, "packets", "traffic-manager ingress queue depth",
                always_present=True, live_always_sent=True, api_doc=None),
    RecordField("rx_bytes", "rx_bytes", _COUNT64, "bytes", "received since the agent started (monotonic)",
                always_present=True, api_doc=None, live_doc=None),
    RecordField("tx_bytes", "tx_bytes", _COUNT64, "bytes", "sent since the agent started (monotonic)",
                always_present=True, api_doc=None, live_doc=None),
    RecordField("rx_packets", "rx_packets", _COUNT64, "packets", "received since the agent started (monotonic)",
                always_present=True, api_doc=None, live_doc=None),
    RecordField("tx_packets", "tx_packets", _COUNT64, "packets", "sent since the agent started (monotonic)",
                always_present=True, api_doc=None, live_doc=None),
    RecordField("cpu_utilization", "cpu_util", _SHARE, "0..1", "node CPU utilisation over the period",
                always_present=True, live_always_sent=True, api_doc=None, live_doc="0..1"),
    RecordField("power_watts", "power_watts", Number(), "W", "node power draw", public="power.watts",
                always_present=True, live_always_sent=True),
    RecordField("power_source", "power_source", Choice(POWER_SOURCES, missing="model"), "rapl | ipmi | model",
                "where power_watts came from", public="power.source", always_present=True, live_always_sent=True),
)

INSTANCE_FIELDS = (
    RecordField("requests_completed", "requests", _COUNT64, "requests", "completed since the previous heartbeat",
                always_present=True, live=False, api_doc="Requests completed in the heartbeat period"),
    RecordField("exec_time_us", "exec_us", _US, "µs", "average execution time per request", always_present=True,
                api_doc=None, live_doc="mean execution time per request in the last heartbeat period, µs"),
    RecordField("exec_time_ema_us", "exec_ema_us", _US, "µs", "exponential moving average of exec_time_us",
                always_present=True, api_doc=None, live_doc=None),
    RecordField("cpu_share", "cpu_share", _SHARE, "0..1", "share of the node's CPU it used", always_present=True,
                api_doc=None, live_doc="share of the node's CPU, 0..1"),
    RecordField("latency_count", "lat_n", _COUNT64, "requests", "requests it answered OK since the previous "
                "heartbeat", public="latency_count", live=False,
                api_doc="Requests it answered OK in the heartbeat period (0 from agents that do not measure latency)"),
    RecordField("latency_avg_us", "lat_avg_us", _US, "µs", "their mean latency, arrival at the instance to its "
                "reply (downstream calls included); 0 without requests", public="latency_avg_us", live=False,
                api_doc="Their mean latency, from arrival at the instance to its reply (downstream calls "
                        "included), measured by the agent, µs"),
    RecordField("latency_p99_us", "lat_p99_us", _US, "µs", "their 99th percentile (log-linear buckets, within "
                "~3%); 0 without requests", public="latency_p99_us", live=False,
                api_doc="Their 99th percentile (log-linear buckets, within ~3%), µs"),
)

_NODE_READ = tuple((f.name, f.kind.type, f.kind.missing) for f in NODE_FIELDS)
_INSTANCE_READ = tuple((f.name, f.kind.type, f.kind.missing) for f in INSTANCE_FIELDS)


def read_node(values: Mapping) -> dict:
    """The node fields of a live JSON object (or of any mapping of their texts), typed; a missing one as its
    kind's `missing` value."""
    return {name: cast(values.get(name) or missing) for name, cast, missing in _NODE_READ}


def read_instance(values: Mapping) -> dict:
    """One entry of `instances` (stored or published), typed, with its id; a missing field as `missing`."""
    out = {"id": str(values["id"])}
    for name, cast, missing in _INSTANCE_READ:
        out[name] = cast(values.get(name) or missing)
    return out


def public_dict(fields: Sequence[RecordField], values: Mapping) -> dict:
    """`values` (by field name) under the fields' public names, dotted ones nested: {"power": {"watts": ...}}.
    A field `values` lacks is its kind's `missing` value."""
    out: dict = {}
    for f in fields:
        value = values.get(f.name, f.kind.missing)
        head, _, tail = f.public.partition(".")
        if tail:
            out.setdefault(head, {})[tail] = value
        else:
            out[head] = value
    return out


def quick_check(fields: Sequence[RecordField], prefix: str) -> str:
    """A Python expression, true when every field (each in the variable `prefix + name`, as read from the
    protobuf message) is within the rules; never true when `problem` would refuse one. Counts of one width
    are checked at once, as (a | b) <= max: they are never negative."""
    groups: dict[int, tuple[Count, list[str]]] = {}  # counts by width: the kind, the variables
    checks: list = []  # expressions, and each group of counts where its first one appears
    for f in fields:
        var = prefix + f.name
        if isinstance(f.kind, Count):
            if f.kind.max not in groups:
                groups[f.kind.max] = (f.kind, [])
                checks.append(groups[f.kind.max])
            groups[f.kind.max][1].append(var)
        else:
            checks.append(f.kind.quick(var))
    return " and ".join(c if isinstance(c, str) else c[0].quick(c[1][0] if len(c[1]) == 1 else f"({' | '.join(c[1])})")
                        for c in checks)
