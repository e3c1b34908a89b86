"""Heartbeat intake hot path: validate protobuf Heartbeat messages and encode the accepted ones, in one pass.

The controller receives ~100,000 heartbeats/s at full scale, so this module avoids every intermediate
object: fields are read straight from the protobuf message once, validated with a handful of
comparisons, and formatted directly into the JSON object the heartbeat goes out as: the `e3:live`
"heartbeats" message's item and the node's latest state in `e3:latest:<cluster>` (controller.live_publisher).

With an energy ledger it is also counted there, with rollups added to its node's rollup step
(e3.rollup.steps: what Postgres stores of it), and with a raw tail its live JSON kept there
(controller.raw_tail): a few additions and an append on values already made.

Only when the quick check fails is the heartbeat turned into a dict and given to
`agents.heartbeat_problem`, which names the reason; the rules are that function's (the quick check is
strictly tighter, so it never accepts what `heartbeat_problem` would refuse, and a heartbeat the quick
check doubts but `heartbeat_problem` accepts is accepted).

The fields, their bounds and their encodings are e3.heartbeat_record's. So that the hot path reads no
field descriptor per heartbeat, `accept` (and `instance_json`) are compiled once, at import, from the
templates below with the record's fragments spliced in: the generated source is ACCEPT_SOURCE and
INSTANCE_JSON_SOURCE, and tracebacks show its lines.
"""

import json
import linecache
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

from e3.energy.ledger import EnergyLedger
from e3.controller.raw_tail import RawTail
from e3.heartbeat_record import INSTANCE_FIELDS, NODE_FIELDS, POWER_SOURCES, quick_check
from e3.orchestrator.detection import SMARTNIC
from e3.rollup.steps import RollupSteps
from e3.services import agents

_MAX_INSTANCES, _MAX_ID = agents.MAX_INSTANCES_PER_HEARTBEAT, agents.MAX_ID_CHARS
_INF = float("inf")
_SOURCE_NAMES = (None, *POWER_SOURCES)  # a checked PowerSource value -> its name
_NS = 1_000_000_000
_MARGIN_NS = 1_000_000  # the quick timestamp check stays 1 ms inside heartbeat_problem's bounds
_NO_AGE = 1 << 62  # no heartbeat accepted yet: older than any
NOT_REGISTERED = "node not registered by this agent"
OUT_OF_ORDER = "out of order"
STALE_EPOCH = "stale lease epoch"


def stale_epoch(sent: int, held: int) -> str:
    return f"{STALE_EPOCH}: {sent}, the node's lease is at epoch {held} (register again)"


def out_of_order(behind_ns: int) -> str:
    return f"{OUT_OF_ORDER}: timestamp {behind_ns / 1e6:.3f} ms at or before the node's latest accepted heartbeat"


def heartbeat_dict(hb) -> dict:
    """A Heartbeat message as the dict `agents.heartbeat_problem` checks (proto names; power_source by name)."""
    return dict(node_id=hb.node_id, timestamp_unix_ns=hb.timestamp_unix_ns,
                **{f.proto: f.kind.from_proto(getattr(hb, f.proto)) for f in NODE_FIELDS},
                instances=[dict(instance_id=i.instance_id, **{f.proto: getattr(i, f.proto) for f in INSTANCE_FIELDS})
                           for i in hb.instances])


# Locals of the generated code: n_<name> holds a node field, i_<name> an instance's.
_NODE = [("n_" + f.name, f) for f in NODE_FIELDS]
_INSTANCE = [("i_" + f.name, f) for f in INSTANCE_FIELDS]
_FRAGMENTS = {
    "NODE_READ": [f"{v} = hb.{f.proto}" for v, f in _NODE],
    "NODE_CHECK": quick_check(NODE_FIELDS, "n_"),
    "NODE_TEXT": [f"{v} = {f.kind.text(v)}" for v, f in _NODE],
    "LIVE_FIELDS": ", ".join(f'"{f.name}": {f.kind.json(v)}' for v, f in _NODE),
    "INSTANCE_READ": [f"{v} = inst.{f.proto}" for v, f in _INSTANCE],
    "INSTANCE_CHECK": quick_check(INSTANCE_FIELDS, "i_"),
    "INSTANCE_JSON": ", ".join(f'"{f.name}": {f.kind.json_of_value(v)}' for v, f in _INSTANCE),
}


def _render(template: str) -> str:
    """`template` with each @NAME@ replaced by its fragment; a list fragment fills its line, one statement a
    line at the marker's indentation."""
    lines = []
    for line in template.splitlines(keepends=True):
        marker = line.strip()
        if marker.startswith("@") and marker.endswith("@") and isinstance(_FRAGMENTS.get(marker[1:-1]), list):
            indent = line[:len(line) - len(line.lstrip())]
            lines.extend(f"{indent}{statement}\n" for statement in _FRAGMENTS[marker[1:-1]])
        else:
            lines.append(line)
    text = "".join(lines)
    for name, fragment in _FRAGMENTS.items():
        if isinstance(fragment, str):
            text = text.replace(f"@{name}@", fragment)
    return text


def _compile(name: str, source: str):
    """Define function `name` from `source` in this module's namespace, its lines known to tracebacks."""
    filename = f"<{__name__}: generated {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), globals(), namespace)
    return namespace[name]


INSTANCE_JSON_SOURCE = _render(r'''
def instance_json(qid, inst):
    """One InstanceStats as stored and published (`qid`: its id, already a JSON string)."""
    @INSTANCE_READ@
    return f'{{"id": {qid}, @INSTANCE_JSON@}}'
''')
instance_json = _compile("instance_json", INSTANCE_JSON_SOURCE)


# HeartbeatIntake.accept: the loop of the module's doc. A heartbeat's node fields are read into locals and
# checked at once, its instances one by one as their JSON is written; its fields' texts are made once
# and formatted into its JSON.
ACCEPT_SOURCE = _render(r'''
def accept(self, agent_id, heartbeats, token_id=None):
    """Validate and encode a batch (a sequence of Heartbeat messages) from `agent_id` under agent credential
    `token_id`. Returns the encoded accepted heartbeats and the rejections as (index, node_id as sent,
    reason). Marks accepted nodes seen."""
    now, wall_ns = self.clock(), self.wall_ns()
    lo_ns = wall_ns - agents.MAX_AGE_S * _NS + _MARGIN_NS
    hi_ns = wall_ns + agents.MAX_CLOCK_AHEAD_S * _NS - _MARGIN_NS
    wall = None
    by_text, node_of, ids, seconds = self._by_text, self._node, self._ids, self._seconds
    nodes_of, live, smartnics = [], [], []
    rejections = []
    last_second, second_text = -1, ""
    freshest_ns = self.freshest_age_ns
    for index, hb in enumerate(heartbeats):
        node_text = hb.node_id
        entry = by_text.get(node_text)
        if (entry is None or entry.agent_id != agent_id or entry.token_id != token_id
                or self.nodes.get(entry.tracked.node_id) is not entry.tracked):
            entry = node_of(agent_id, node_text, token_id)
            if entry is None:
                rejections.append((index, node_text, NOT_REGISTERED))
                continue
        ts = hb.timestamp_unix_ns
        @NODE_READ@
        instances = hb.instances
        ok = lo_ns < ts < hi_ns and @NODE_CHECK@ and len(instances) <= _MAX_INSTANCES
        parts, used = [], []
        if ok:
            for inst in instances:
                iid = inst.instance_id
                @INSTANCE_READ@
                if not (0 < len(iid) <= _MAX_ID and @INSTANCE_CHECK@
                        and (iid in ids or iid.isprintable())):
                    ok = False
                    break
                parts.append(f'{{"id": {ids.get(iid) or self._instance_id(iid)}, @INSTANCE_JSON@}}')
                used.append((iid, i_requests, i_cpu_share, i_exec_us, i_lat_n, i_lat_avg_us, i_lat_p99_us))
        if not ok:
            self.doubted += 1
            if wall is None:
                wall = datetime.fromtimestamp(wall_ns / _NS, timezone.utc)
            problem = agents.heartbeat_problem(heartbeat_dict(hb), wall)
            if problem:
                rejections.append((index, node_text, problem))
                continue
            # accepted by the rules, only doubted by the quick check (a bound within 1 ms): encode it
            parts = []
            for inst in instances:
                parts.append(instance_json(ids.get(inst.instance_id) or self._instance_id(inst.instance_id), inst))
            used = [(i.instance_id, i.requests_completed, i.cpu_share, i.exec_time_us, i.latency_count,
                     i.latency_avg_us, i.latency_p99_us) for i in instances]
        held_epoch = entry.tracked.lease_epoch
        if held_epoch and 0 < hb.lease_epoch < held_epoch:  # sent before the node moved to this controller
            rejections.append((index, node_text, stale_epoch(hb.lease_epoch, held_epoch)))
            continue
        latest_ns = entry.tracked.latest_ts_ns
        if ts <= latest_ns:  # a replay, or the agent's clock stepped back: its figures were counted already
            rejections.append((index, node_text, out_of_order(latest_ns - ts)))
            continue
        entry.tracked.latest_ts_ns = ts
        override = entry.tracked.power_override  # the controller's own measurement, while fresh
        if override is not None and override[2] <= now:
            override = None
        if entry.energy is not None:
            if override is None:
                watts, source = n_power_watts, _SOURCE_NAMES[n_power_source]
            else:
                watts, source = override[0], override[1]
            joules = entry.energy.add(ts / _NS, watts, source, n_cpu_util, used)
            if entry.rollup is not None:
                entry.rollup.add(ts / _NS, entry.energy.interval, joules, source, watts, n_queue_len, n_cpu_util,
                                 n_rx_bytes, n_tx_bytes, n_rx_packets, n_tx_packets, used)
        entry.tracked.last_seen = now
        if wall_ns - ts < freshest_ns:
            freshest_ns = wall_ns - ts
        second, micros = divmod(ts // 1000, 1_000_000)
        if second != last_second:
            last_second = second
            second_text = seconds.get(second) or self._second(second)
        t = f"{second_text}.{micros:06d}+00:00"
        inst = "[" + ", ".join(parts) + "]"
        @NODE_TEXT@
        if override is not None:
            n_power_watts, n_power_source = repr(override[0]), override[1]
        nodes_of.append(entry.key)
        if entry.smartnic:
            smartnics.append((entry.tracked, hb))
        item = f'{entry.live_prefix}{t}", @LIVE_FIELDS@, "instances": {inst}{entry.live_suffix}'
        live.append(item)
        if entry.tail is not None:
            entry.tail.append((ts, item))
    self.freshest_age_ns = freshest_ns
    return Encoded(len(live), nodes_of, live, smartnics), rejections
''')


@dataclass
class Encoded:
    """One batch's accepted heartbeats, encoded. Strings are ASCII (JSON is escaped), so len() is bytes."""
    accepted: int = 0
    nodes: list[tuple[str, str]] = field(default_factory=list)  # per heartbeat, its (cluster id, node id)
    live_items: list[str] = field(default_factory=list)  # per heartbeat, its JSON object
    # the accepted heartbeats of SmartNIC nodes with their tracked node: what the orchestrator judges
    smartnics: list[tuple] = field(default_factory=list)


class _Node:
    """Per node, what the hot path needs: the tracked node it must still be, its constant encodings, its
    energy account (None without a ledger), its rollup steps (None without rollups) and its raw tail (None
    without one)."""
    __slots__ = ("tracked", "agent_id", "token_id", "key", "live_prefix", "live_suffix",
                 "energy", "rollup", "tail", "smartnic")

    def __init__(self, tracked, node_id: uuid.UUID, cluster_id, energy: EnergyLedger | None = None,
                 rollups: RollupSteps | None = None, tail: RawTail | None = None):
        nid, cid = str(node_id), str(cluster_id)
        self.tracked, self.agent_id, self.token_id = tracked, tracked.agent_id, tracked.token_id
        self.energy = None if energy is None else energy.account(nid, cid, tracked.kind, tracked.name)
        self.rollup = None if rollups is None else rollups.node(nid, cid)
        self.tail = None if tail is None else tail.node(nid)
        self.key = (cid, nid)
        self.smartnic = tracked.kind == SMARTNIC
        self.live_prefix = f'{{"node_id": "{nid}", "ts": "'
        self.live_suffix = f', "cluster_id": "{cid}"}}'


class HeartbeatIntake:
    """Validates and encodes batches against the hub's tracked nodes (`nodes`: node UUID -> TrackedNode
    with .agent_id, .token_id, .cluster_id, .kind, .name, .last_seen). Keeps small caches; holds no heartbeat
    between calls. With an `energy` ledger, each accepted heartbeat is also counted there (e3.energy.ledger),
    and with `rollups` (which need the ledger: they take its energy and interval) in its rollup step
    (e3.rollup.steps), and with a `tail` its live JSON kept in the node's raw tail (controller.raw_tail)."""

    def __init__(self, nodes: Mapping, clock: Callable[[], float], wall_ns: Callable[[], int],
                 energy: EnergyLedger | None = None, rollups: RollupSteps | None = None,
                 tail: RawTail | None = None):
        if rollups is not None and energy is None:
            raise ValueError("rollups need the energy ledger (they store its joules and intervals)")
        self.nodes, self.clock, self.wall_ns, self.energy, self.rollups = nodes, clock, wall_ns, energy, rollups
        self.tail = tail
        self._by_text: dict[str, _Node] = {}  # node_id as sent -> _Node
        self._ids: dict[str, str] = {}  # instance_id -> its JSON string
        self._seconds: dict[int, str] = {}  # unix second -> "YYYY-MM-DDTHH:MM:SS"
        self.freshest_age_ns = _NO_AGE  # the youngest accepted heartbeat's age since take_backlog_s
        self.doubted = 0  # heartbeats the quick check doubted, so heartbeat_problem judged them (the slow path)

    def take_backlog_s(self) -> float | None:
        """How far behind its agents this intake is: the age (wall clock - the agent's timestamp) of the youngest
        heartbeat accepted since the last call, in seconds, never below 0; None when none was. Every agent's clock
        would have to lag for this to overstate the backlog (one whose clock is ahead makes it smaller)."""
        age, self.freshest_age_ns = self.freshest_age_ns, _NO_AGE
        return None if age == _NO_AGE else max(age, 0) / _NS

    def heard_aged(self, age_s: float) -> None:
        """A heartbeat `age_s` old was accepted elsewhere (the ingest front, which measures its own backlog): the
        next take_backlog_s counts it."""
        self.freshest_age_ns = min(self.freshest_age_ns, int(age_s * _NS))

    def _node(self, agent_id: str, node_text: str, token_id=None) -> _Node | None:
        """The node `node_text` names when `agent_id` runs it under credential `token_id` (its current
        registration), else None."""
        entry = self._by_text.get(node_text)
        if entry is not None:
            tracked = entry.tracked
            if self.nodes.get(tracked.node_id) is tracked:
                return entry if (tracked.agent_id, tracked.token_id) == (agent_id, token_id) else None
        try:
            node_id = uuid.UUID(node_text)
        except ValueError:
            return None
        tracked = self.nodes.get(node_id)
        if tracked is None:
            return None
        if len(self._by_text) > 4 * len(self.nodes) + 1000:
            self._by_text.clear()
        entry = self._by_text[node_text] = _Node(tracked, node_id, tracked.cluster_id, self.energy, self.rollups,
                                                 self.tail)
        return entry if (tracked.agent_id, tracked.token_id) == (agent_id, token_id) else None

    def _second(self, second: int) -> str:
        text = self._seconds.get(second)
        if text is None:
            if len(self._seconds) > 10_000:
                self._seconds.clear()
            text = self._seconds[second] = datetime.fromtimestamp(second, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
        return text

    def _instance_id(self, instance_id: str) -> str:
        if len(self._ids) > 200_000:
            self._ids.clear()
        text = self._ids[instance_id] = json.dumps(instance_id)
        return text

    accept = _compile("accept", ACCEPT_SOURCE)
