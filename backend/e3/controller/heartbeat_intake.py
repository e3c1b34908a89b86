"""Heartbeat intake hot path: validate protobuf Heartbeat messages and encode the accepted ones, in one pass.

The controller receives ~100,000 heartbeats/s at full scale, so this module avoids every intermediate
object: fields are read straight from the protobuf message once, validated with a handful of
comparisons, and formatted directly into the three encodings the heartbeat goes out in:

  - a line of `COPY heartbeats FROM STDIN` text (the writer joins the lines and COPYs them),
  - an `HSET e3:node:<id> ...` command in Redis protocol (the node's latest state),
  - a JSON object for the `e3:live` "heartbeats" message.

Only when the quick check fails is the heartbeat turned into a dict and given to
`agents.heartbeat_problem`, which names the reason; the rules are that function's (the quick check is
strictly tighter, so it never accepts what `heartbeat_problem` would refuse, and a heartbeat the quick
check doubts but `heartbeat_problem` accepts is accepted).
"""

import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

from e3.services import agents

# power_source enum value -> stored name (the PowerSource enum of agent.proto: 1 RAPL, 2 IPMI, 3 MODEL)
POWER_SOURCE_NAMES = (None, "rapl", "ipmi", "model")
_INT32_MAX, _INT64_MAX = 2**31 - 1, 2**63 - 1
_MAX_INSTANCES, _MAX_ID = agents.MAX_INSTANCES_PER_HEARTBEAT, agents.MAX_ID_CHARS
_INF = float("inf")
_NS, _DAY_S = 1_000_000_000, 86_400
_MARGIN_NS = 1_000_000  # the quick timestamp check stays 1 ms inside heartbeat_problem's bounds
NOT_REGISTERED = "node not registered by this agent"


def heartbeat_dict(hb) -> dict:
    """A Heartbeat message as the dict `agents.heartbeat_problem` checks (power_source by name)."""
    src = hb.power_source
    return dict(node_id=hb.node_id, timestamp_unix_ns=hb.timestamp_unix_ns, queue_length=hb.queue_length,
                rx_bytes=hb.rx_bytes, tx_bytes=hb.tx_bytes, rx_packets=hb.rx_packets, tx_packets=hb.tx_packets,
                cpu_utilization=hb.cpu_utilization, power_watts=hb.power_watts,
                power_source=POWER_SOURCE_NAMES[src] if 0 <= src < len(POWER_SOURCE_NAMES) else None,
                instances=[dict(instance_id=i.instance_id, requests_completed=i.requests_completed,
                                exec_time_us=i.exec_time_us, exec_time_ema_us=i.exec_time_ema_us,
                                cpu_share=i.cpu_share, latency_count=i.latency_count,
                                latency_avg_us=i.latency_avg_us, latency_p99_us=i.latency_p99_us)
                           for i in hb.instances])


def _instance_text(qid: str, req: int, ex: float, ema: float, share: float, lat_n: int, lat_avg: float,
                   lat_p99: float) -> str:
    return (f'{{"id": {qid}, "requests": {req}, "exec_us": {ex!r}, "exec_ema_us": {ema!r}, "cpu_share": {share!r}, '
            f'"lat_n": {lat_n}, "lat_avg_us": {lat_avg!r}, "lat_p99_us": {lat_p99!r}}}')


def instance_json(qid: str, inst) -> str:
    """One InstanceStats as stored and published (`qid`: its id, already a JSON string)."""
    return _instance_text(qid, inst.requests_completed, inst.exec_time_us, inst.exec_time_ema_us, inst.cpu_share,
                          inst.latency_count, inst.latency_avg_us, inst.latency_p99_us)


def _bulk(s: str) -> str:
    return f"${len(s.encode())}\r\n{s}\r\n"


@dataclass
class Encoded:
    """One batch's accepted heartbeats, encoded. Strings are ASCII (JSON is escaped), so len() is bytes."""
    rows: int = 0
    copy_text: str = ""  # COPY text lines, each ending in \n
    redis_commands: str = ""  # one HSET per heartbeat, Redis protocol
    live_items: list[str] = field(default_factory=list)  # one JSON object per heartbeat
    days: set[int] = field(default_factory=set)  # UTC days (since the epoch) of the rows' timestamps


class _Node:
    """Per node, what the hot path needs: the tracked node it must still be, and its constant encodings."""
    __slots__ = ("tracked", "agent_id", "copy_prefix", "hset_prefix", "live_prefix", "live_suffix")

    def __init__(self, tracked, node_id: uuid.UUID, cluster_id):
        nid, cid = str(node_id), str(cluster_id)
        self.tracked, self.agent_id = tracked, tracked.agent_id
        self.copy_prefix = nid + "\t"
        key = f"e3:node:{nid}"
        self.hset_prefix = ("*26\r\n$4\r\nHSET\r\n" + _bulk(key) + "$7\r\nnode_id\r\n" + _bulk(nid)
                            + "$10\r\ncluster_id\r\n" + _bulk(cid))
        self.live_prefix = f'{{"node_id": "{nid}", "ts": "'
        self.live_suffix = f', "cluster_id": "{cid}"}}'


class HeartbeatIntake:
    """Validates and encodes batches against the hub's tracked nodes (`nodes`: node UUID -> TrackedNode
    with .agent_id, .cluster_id, .last_seen). Keeps small caches; holds no heartbeat between calls."""

    def __init__(self, nodes: Mapping, clock: Callable[[], float], wall_ns: Callable[[], int]):
        self.nodes, self.clock, self.wall_ns = nodes, clock, wall_ns
        self._by_text: dict[str, _Node] = {}  # node_id as sent -> _Node
        self._ids: dict[str, str] = {}  # instance_id -> its JSON string
        self._seconds: dict[int, str] = {}  # unix second -> "YYYY-MM-DDTHH:MM:SS"

    def _node(self, agent_id: str, node_text: str) -> _Node | None:
        """The node `node_text` names when `agent_id` runs it (its current registration), else None."""
        entry = self._by_text.get(node_text)
        if entry is not None:
            tracked = entry.tracked
            if self.nodes.get(tracked.node_id) is tracked:
                return entry if tracked.agent_id == agent_id else None
        try:
            node_id = uuid.UUID(node_text)
        except ValueError:
            return None
        tracked = self.nodes.get(node_id)
        if tracked is None:
            return None
        if len(self._by_text) > 4 * len(self.nodes) + 1000:
            self._by_text.clear()
        entry = self._by_text[node_text] = _Node(tracked, node_id, tracked.cluster_id)
        return entry if tracked.agent_id == agent_id else None

    def tracked(self, agent_id: str, node_text: str):
        """The tracked node `node_text` names when `agent_id` runs it, else None (cached)."""
        entry = self._node(agent_id, node_text)
        return entry.tracked if entry is not None else None

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

    def accept(self, agent_id: str, heartbeats) -> tuple[Encoded, list[tuple[int, str, str]]]:
        """Validate and encode a batch (a sequence of Heartbeat messages). Returns the encoded accepted
        heartbeats and the rejections as (index, node_id as sent, reason). Marks accepted nodes seen."""
        now, wall_ns = self.clock(), self.wall_ns()
        lo_ns = wall_ns - agents.MAX_AGE_S * _NS + _MARGIN_NS
        hi_ns = wall_ns + agents.MAX_CLOCK_AHEAD_S * _NS - _MARGIN_NS
        wall = None
        by_text, node_of, ids, seconds = self._by_text, self._node, self._ids, self._seconds
        copy, hset, live, days = [], [], [], set()
        rejections = []
        last_second, second_text = -1, ""
        for index, hb in enumerate(heartbeats):
            node_text = hb.node_id
            entry = by_text.get(node_text)
            if (entry is None or entry.agent_id != agent_id or self.nodes.get(entry.tracked.node_id)
                    is not entry.tracked):
                entry = node_of(agent_id, node_text)
                if entry is None:
                    rejections.append((index, node_text, NOT_REGISTERED))
                    continue
            ts = hb.timestamp_unix_ns
            q = hb.queue_length
            rxb, txb, rxp, txp = hb.rx_bytes, hb.tx_bytes, hb.rx_packets, hb.tx_packets
            cpu, pw, src = hb.cpu_utilization, hb.power_watts, hb.power_source
            instances = hb.instances
            ok = (lo_ns < ts < hi_ns and q <= _INT32_MAX and (rxb | txb | rxp | txp) <= _INT64_MAX
                  and 0 < src < 4 and 0.0 <= pw < _INF and 0.0 <= cpu <= 1.0 and len(instances) <= _MAX_INSTANCES)
            parts = []
            if ok:
                for inst in instances:
                    iid, req = inst.instance_id, inst.requests_completed
                    ex, ema, share = inst.exec_time_us, inst.exec_time_ema_us, inst.cpu_share
                    lat_n, lat_avg, lat_p99 = inst.latency_count, inst.latency_avg_us, inst.latency_p99_us
                    if not (0 < len(iid) <= _MAX_ID and 0.0 <= ex < _INF and 0.0 <= ema < _INF
                            and req <= _INT64_MAX and 0.0 <= share <= 1.0 and (iid in ids or iid.isprintable())
                            and lat_n <= _INT64_MAX and 0.0 <= lat_avg < _INF and 0.0 <= lat_p99 < _INF):
                        ok = False
                        break
                    parts.append(_instance_text(ids.get(iid) or self._instance_id(iid), req, ex, ema, share,
                                                lat_n, lat_avg, lat_p99))
            if not ok:
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
            entry.tracked.last_seen = now
            second, micros = divmod(ts // 1000, 1_000_000)
            if second != last_second:
                last_second = second
                second_text = seconds.get(second) or self._second(second)
                days.add(second // _DAY_S)
            t = f"{second_text}.{micros:06d}+00:00"
            inst = "[" + ", ".join(parts) + "]"
            source = POWER_SOURCE_NAMES[src]
            q, rxb, txb, rxp, txp, cpu, pw = str(q), str(rxb), str(txb), str(rxp), str(txp), repr(cpu), repr(pw)
            copy.append(f"{entry.copy_prefix}{t}\t{q}\t{rxb}\t{txb}\t{rxp}\t{txp}\t{cpu}\t{pw}\t{source}\t"
                        f"{inst.replace(chr(92), chr(92) * 2) if chr(92) in inst else inst}\n")
            hset.append(f"{entry.hset_prefix}$2\r\nts\r\n$32\r\n{t}\r\n"
                        f"$9\r\nqueue_len\r\n${len(q)}\r\n{q}\r\n$8\r\nrx_bytes\r\n${len(rxb)}\r\n{rxb}\r\n"
                        f"$8\r\ntx_bytes\r\n${len(txb)}\r\n{txb}\r\n$10\r\nrx_packets\r\n${len(rxp)}\r\n{rxp}\r\n"
                        f"$10\r\ntx_packets\r\n${len(txp)}\r\n{txp}\r\n$8\r\ncpu_util\r\n${len(cpu)}\r\n{cpu}\r\n"
                        f"$11\r\npower_watts\r\n${len(pw)}\r\n{pw}\r\n$12\r\npower_source\r\n${len(source)}\r\n"
                        f"{source}\r\n$9\r\ninstances\r\n${len(inst)}\r\n{inst}\r\n")
            live.append(f'{entry.live_prefix}{t}", "queue_len": {q}, "rx_bytes": {rxb}, "tx_bytes": {txb}, '
                        f'"rx_packets": {rxp}, "tx_packets": {txp}, "cpu_util": {cpu}, "power_watts": {pw}, '
                        f'"power_source": "{source}", "instances": {inst}{entry.live_suffix}')
        return Encoded(len(copy), "".join(copy), "".join(hset), live, days), rejections
