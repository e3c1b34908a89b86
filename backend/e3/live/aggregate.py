"""What the live channel shows, computed from heartbeats: per node, per application (deployment), per cluster.

Pure: no database, no Redis, no clock of its own (every function takes `now`, seconds since the epoch).

Heartbeats carry, per instance, the requests it completed since the node's previous heartbeat, their
average execution time and its CPU share; per node the queue depth, CPU, and power with its source
(the fields: e3.heartbeat_record). So:

- requests/s of an instance: its requests over the heartbeats of the last `RATE_WINDOW_S`, divided by the
  time they span (the first one's requests are before the span and not counted); null until a node has
  sent two heartbeats;
- an application's throughput: the requests/s of the primaries of its entry DAG nodes (those no edge
  leads to), i.e. the requests entering it;
- its latency, `basis: "measured_at_entry"` when the agents measure it (heartbeats carry, per instance,
  the requests it answered OK in the period with their mean and p99 latency from arrival to reply,
  downstream calls included): at the primaries of its entry DAG nodes, the request-weighted mean over the
  window, and as p99 the highest per-heartbeat p99 in the window, an upper bound of the window's p99
  (`p99_is_upper_bound`); the client's network is not in it. Otherwise (older agents, no request in the
  window) `basis: "exec_time_path"`: the sum, along the DAG's slowest path, of each DAG node's mean
  execution time (request-weighted), a lower bound with no network and no queueing, and no p99. That sum
  is given in both cases as `exec_path_us`. The cost model's predicted average and p99 are given beside
  them, labelled `source: "model"`;
- its power: each node's watts (its mean over the window) attributed to the instances on it by the same
  rule as the energy history (e3.energy.attribution, over one second): idle watts by reserved cores,
  the rest by CPU share, the node's own CPU keeping its part; summed over the application's instances;
  joules per request = those watts / its throughput (e3.energy.joules). The sources (rapl | ipmi |
  ipmi-split | model) are those of the nodes it drew from;
- the cluster: the watts of the nodes reporting, the summed throughput of its applications, requests
  per joule.

A node whose latest heartbeat is older than `STALE_AFTER_MS` is stale: its figures are shown as what they
were at `ts`, and it counts in no aggregate (an aggregate that misses a node says `complete: false`).
"""

import json
from collections import deque
from dataclasses import dataclass, field

from e3.energy.attribution import InstanceUsage, NodeInterval, attribute
from e3.energy.joules import joules_per_request, requests_per_joule
from e3.heartbeat_record import INSTANCE_FIELDS, NODE_FIELDS, public_dict, read_instance, read_node
from e3.live.channel import parse_ts
from e3.live.dag_figures import dag_node_figures, edge_figures

STALE_AFTER_MS = 500  # ten heartbeat periods (50 ms) without one
RATE_WINDOW_S = 1.0
# what a node's view shows of its latest heartbeat (schemas.live); before its first one, the fields always
# sent are null (by the top level of their public names: power, not power.watts)
_LIVE_NODE_FIELDS = tuple(f for f in NODE_FIELDS if f.live)
_LIVE_INSTANCE_FIELDS = tuple(f for f in INSTANCE_FIELDS if f.live)
_SENT_EMPTY = {f.public.partition(".")[0]: None for f in _LIVE_NODE_FIELDS if f.live_always_sent}


@dataclass(frozen=True)
class NodeMeta:
    id: str
    name: str
    kind: str  # host | smartnic
    server: str
    rack: str
    core_class: str
    idle_watts: float = 0.0  # modelled (e3.energy.server_split.node_idle_watts): the idle part of attribution


@dataclass(frozen=True)
class InstanceMeta:
    id: str
    node_id: str
    deployment_id: str
    application: str
    dag_node: str
    service: str
    role: str  # primary | backup
    shard: int
    replica: int
    reserved_cores: float | None = None  # its reservation: its part of the node's idle watts


@dataclass(frozen=True)
class AppMeta:
    deployment_id: str
    application: str
    version: int
    dag_nodes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]  # (from, to), the direction requests flow
    predicted: dict | None = None  # the cost model's figures for its placement

    @property
    def entries(self) -> set[str]:
        targets = {b for _, b in self.edges}
        return {n for n in self.dag_nodes if n not in targets}


@dataclass
class ClusterMeta:
    id: str
    name: str
    nodes: dict[str, NodeMeta] = field(default_factory=dict)
    instances: dict[str, InstanceMeta] = field(default_factory=dict)
    apps: dict[str, AppMeta] = field(default_factory=dict)


def parse_heartbeat(fields: dict) -> dict | None:
    """A heartbeat from an `e3:live` item (also what `e3:latest:<cluster>` holds per node), normalised; None
    when it holds no heartbeat."""
    if not fields.get("ts") or fields.get("power_watts") in (None, ""):
        return None
    instances = fields.get("instances") or []
    if isinstance(instances, str):
        instances = json.loads(instances)
    hb = read_node(fields)
    hb.update(node_id=str(fields["node_id"]), ts=str(fields["ts"]), t=parse_ts(str(fields["ts"])),
              instances=[read_instance(i) for i in instances])
    return hb


class NodeWindow:
    """One node's heartbeats of the last RATE_WINDOW_S (before its latest), oldest first."""

    __slots__ = ("items", "_stats")

    def __init__(self) -> None:
        self.items: deque[dict] = deque()
        self._stats: tuple[dict, dict] | None = None  # instance_stats() since the last heartbeat

    @property
    def latest(self) -> dict | None:
        return self.items[-1] if self.items else None

    def add(self, hb: dict) -> bool:
        """Keep `hb` if it is newer than the latest; False (ignored) otherwise."""
        if self.items and hb["t"] <= self.items[-1]["t"]:
            return False
        self.items.append(hb)
        self._stats = None
        while len(self.items) > 2 and self.items[1]["t"] < hb["t"] - RATE_WINDOW_S:
            self.items.popleft()
        return True

    def span(self) -> float:
        return self.items[-1]["t"] - self.items[0]["t"] if len(self.items) > 1 else 0.0

    def instance_stats(self) -> tuple[dict[str, tuple[float, float | None]], dict[str, tuple[int, float, float]]]:
        """Over the window (the heartbeats after the first), in one pass, kept until the next heartbeat:
        - rates: per instance, (requests/s, request-weighted mean exec time in µs or None without requests);
          empty until there are two heartbeats;
        - latencies: per instance that answered requests OK, (requests, their mean latency µs, the highest
          per-heartbeat p99 µs)."""
        if self._stats is not None:
            return self._stats
        span = self.span()
        counts: dict[str, list[float]] = {}
        lat: dict[str, list[float]] = {}
        for hb in list(self.items)[1:]:
            for i in hb["instances"]:
                c = counts.setdefault(i["id"], [0, 0.0])
                c[0] += i["requests"]
                c[1] += i["requests"] * i["exec_us"]
                if i["lat_n"] > 0:
                    m = lat.setdefault(i["id"], [0, 0.0, 0.0])
                    m[0] += i["lat_n"]
                    m[1] += i["lat_n"] * i["lat_avg_us"]
                    m[2] = max(m[2], i["lat_p99_us"])
        rates: dict[str, tuple[float, float | None]] = {}
        if span > 0:
            for i in self.items[-1]["instances"]:
                counts.setdefault(i["id"], [0, 0.0])
            rates = {iid: (n / span, total / n if n else None) for iid, (n, total) in counts.items()}
        self._stats = rates, {iid: (int(n), total / n, p99) for iid, (n, total, p99) in lat.items()}
        return self._stats

    def mean_watts(self) -> float:
        return sum(hb["power_watts"] for hb in self.items) / len(self.items)


def _reserved(meta: ClusterMeta, instance_id: str) -> float | None:
    inst = meta.instances.get(instance_id)
    return inst.reserved_cores if inst else None


def age_ms(hb: dict | None, now: float) -> int | None:
    return None if hb is None else max(0, round((now - hb["t"]) * 1000))


def is_stale(hb: dict | None, now: float) -> bool:
    return hb is None or (now - hb["t"]) * 1000 > STALE_AFTER_MS


def node_view(meta: NodeMeta, window: NodeWindow | None, state: str, state_since: str | None, now: float) -> dict:
    """One node as the channel sends it: its metadata, state, and latest heartbeat with its age."""
    hb = window.latest if window else None
    view = dict(id=meta.id, name=meta.name, kind=meta.kind, server=meta.server, rack=meta.rack, state=state,
                state_since=state_since, ts=hb["ts"] if hb else None, age_ms=age_ms(hb, now),
                stale=is_stale(hb, now))
    if hb is None:
        return view | _SENT_EMPTY | dict(instances=[])
    rates, _ = window.instance_stats()
    view.update(public_dict(_LIVE_NODE_FIELDS, hb),
                instances=[dict(id=i["id"], requests_per_s=_round(rates[i["id"]][0]) if i["id"] in rates else None,
                                **public_dict(_LIVE_INSTANCE_FIELDS, i))
                           for i in hb["instances"]])
    return view


def _round(x: float | None) -> float | None:
    """Six significant digits: the figures are estimates, and a small J/req keeps its precision."""
    return None if x is None else float(f"{x:.6g}")


def _source(sources: set[str]) -> str | None:
    return None if not sources else next(iter(sources)) if len(sources) == 1 else "mixed"


def slowest_path_us(app: AppMeta, exec_us: dict[str, float]) -> float | None:
    """The largest sum of per-DAG-node times over the paths from an entry (DAG nodes without a time count 0);
    None if no DAG node has one."""
    if not exec_us:
        return None
    incoming: dict[str, list[str]] = {n: [] for n in app.dag_nodes}
    for a, b in app.edges:
        incoming.setdefault(b, []).append(a)
    best: dict[str, float] = {}

    def longest(n: str, seen: frozenset) -> float:
        if n not in best:  # specs are acyclic (validated); `seen` only guards a bad one
            best[n] = exec_us.get(n, 0.0) + max((longest(p, seen | {n}) for p in incoming.get(n, ()) if p not in seen),
                                                default=0.0)
        return best[n]

    return max(longest(n, frozenset()) for n in incoming)


def entry_latency(entry: list[InstanceMeta], latencies: dict[str, tuple[int, float, float]],
                  exec_path_us: float | None) -> dict:
    """An application's latency: measured at its entry primaries when any answered requests in the window,
    else the execution-time path (see the module's doc)."""
    measured = [latencies[i.id] for i in entry if i.id in latencies]
    n = sum(m[0] for m in measured)
    if not n:
        return dict(avg_us=_round(exec_path_us), p99_us=None, p99_is_upper_bound=False, basis="exec_time_path",
                    exec_path_us=_round(exec_path_us))
    return dict(avg_us=_round(sum(m[0] * m[1] for m in measured) / n), p99_us=_round(max(m[2] for m in measured)),
                p99_is_upper_bound=True, basis="measured_at_entry", exec_path_us=_round(exec_path_us))


def aggregate(meta: ClusterMeta, windows: dict[str, NodeWindow], now: float) -> tuple[list[dict], dict]:
    """Per application (deployment) and for the cluster, from the nodes that are not stale."""
    fresh = {nid: w for nid, w in windows.items() if nid in meta.nodes and not is_stale(w.latest, now)}
    rates: dict[str, tuple[float, float | None]] = {}
    latencies: dict[str, tuple[int, float, float]] = {}
    watts_of: dict[str, float] = {}  # instance -> watts attributed to it
    shares: dict[str, float] = {}  # instance -> its CPU share in its node's latest heartbeat
    for nid, w in fresh.items():
        node_rates, node_latencies = w.instance_stats()
        rates.update(node_rates)
        latencies.update(node_latencies)
        hb = w.latest
        reported = {i["id"]: i["cpu_share"] for i in hb["instances"]}
        shares.update(reported)
        on_node = list(reported) + [iid for iid, i in meta.instances.items() if i.node_id == nid and iid not in reported]
        usage = [InstanceUsage(iid, reported.get(iid, 0.0), reserved_cores=_reserved(meta, iid)) for iid in on_node]
        energy = attribute(NodeInterval.from_watts(nid, w.mean_watts(), 1.0, meta.nodes[nid].idle_watts,
                                                   hb["power_source"], usage, hb["cpu_util"]))
        watts_of.update((e.instance_id, e.joules) for e in energy.instances)  # joules over 1 s: watts
    def kind_of(node_id: str) -> str:
        node = meta.nodes.get(node_id)
        return node.kind if node else "unknown"

    by_app: dict[str, list[InstanceMeta]] = {}
    for inst in meta.instances.values():
        by_app.setdefault(inst.deployment_id, []).append(inst)
    apps = []
    for dep_id, app in sorted(meta.apps.items(), key=lambda kv: (kv[1].application, kv[0])):
        insts = by_app.get(dep_id, [])
        missing = {i.node_id for i in insts if i.node_id not in fresh}
        live = [i for i in insts if i.node_id in fresh]
        entries = app.entries
        entry = [rates[i.id][0] for i in live if i.dag_node in entries and i.role == "primary" and i.id in rates]
        throughput = sum(entry) if entry else None
        weighted: dict[str, list[float]] = {}
        for i in live:
            rps, ex = rates.get(i.id, (0.0, None))
            if i.role == "primary" and ex is not None and rps > 0:
                w = weighted.setdefault(i.dag_node, [0.0, 0.0])
                w[0] += rps
                w[1] += rps * ex
        path = slowest_path_us(app, {n: total / n_rps for n, (n_rps, total) in weighted.items()})
        watts = sum(watts_of.get(i.id, 0.0) for i in live) if live else None
        sources = {fresh[i.node_id].latest["power_source"] for i in live}
        dag_nodes = dag_node_figures(app.dag_nodes, insts, fresh.__contains__, kind_of, rates, latencies, watts_of,
                                     shares, lambda n: fresh[n].latest["queue_len"] if n in fresh else None)
        predicted = None
        if app.predicted:
            p = app.predicted
            predicted = dict(throughput_rps=p.get("throughput_rps"), avg_latency_ms=p.get("avg_latency_ms"),
                             p99_latency_ms=p.get("p99_latency_ms"), joules_per_request=p.get("joules_per_request"),
                             source=p.get("source", "model"))
        apps.append(dict(
            deployment_id=dep_id, application=app.application, version=app.version, instances=len(insts),
            nodes_stale=len(missing), complete=not missing,
            throughput_rps=_round(throughput),
            latency=entry_latency([i for i in live if i.dag_node in entries and i.role == "primary"], latencies, path),
            power=dict(watts=_round(watts), source=_source(sources), sources=sorted(sources)),
            joules_per_request=_round(joules_per_request(watts, throughput)),
            predicted=predicted, dag_nodes=dag_nodes,
            edges=edge_figures(app.edges, {d["dag_node"]: d["throughput_rps"] for d in dag_nodes})))
    watts = sum(w.latest["power_watts"] for w in fresh.values())
    sources = {w.latest["power_source"] for w in fresh.values()}
    known = [a["throughput_rps"] for a in apps if a["throughput_rps"] is not None]
    throughput = sum(known) if known else None
    totals = dict(nodes=len(meta.nodes), nodes_reporting=len(fresh), nodes_stale=len(meta.nodes) - len(fresh),
                  complete=len(fresh) == len(meta.nodes),
                  power=dict(watts=_round(watts) if fresh else None, source=_source(sources), sources=sorted(sources)),
                  throughput_rps=_round(throughput),
                  requests_per_joule=_round(requests_per_joule(watts, throughput)))
    return apps, totals
