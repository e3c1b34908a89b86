"""The placement cost model: what a placement should deliver, predicted from the paper's tables.

One module for every prediction E3 shows (what-if API, benchmarks, CI dry-runs). Pure: no
database, no web. `predict` gives, for a placement and an offered load at the DAG's entry
(None = at the knee): throughput at the knee and its bottleneck, average and p99 latency along
the critical path, power, joules per request and requests per joule, per edge, node and server.
Every figure is a prediction (`source: "model"`). Constants, formulas and what is not modelled:
docs/placement-cost-model.md.

Aggregation keeps it linear in instances: loads are summed per DAG node and per computing node,
and an edge's latency is the average over all (parent shard, child shard) pairs, computed from
per-node/server/rack/pod counts of the child's shards, never by looping over pairs. RTTs and
port accounting live in `network_model`, watts in `power_model`; this module re-exports the
RTT names (`LEVEL_RTT_US`, `rtt_us`, `edge_rtt_us`) so callers need only this one.
"""

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cache

from e3 import catalog
from e3.energy.joules import joules_per_request, requests_per_joule
from e3.placement import power_model
from e3.placement.model import InstanceRequest, NodeCapacity, Placement, PlacementProblem
from e3.placement.network_model import (HOST_HOST_RTT_US, LEVEL_NAMES, LEVEL_RTT_US, PORT_KNEE_UTILISATION,
                                        SAME_NODE_RTT_US, SMARTNIC_HOST_RTT_US, SMARTNIC_SMARTNIC_RTT_US,
                                        SWITCH_HOP_RTT_US, WIRE_OVERHEAD_BYTES, busiest_ports, edge_rtt_us,
                                        off_node, pair_levels, rtt_us, through_ports)

__all__ = ["LEVEL_RTT_US", "Prediction", "compare", "edge_rtt_us", "predict", "rtt_us"]

SOURCE = "model"

# Load. Table 1's peak is "the knee of the latency-throughput graph" (§2.3): a node whose load is
# 1.0 serves exactly Table 1's rate per core. Assumed: its cores are then 90% busy, so it
# saturates at load 1/0.9.
KNEE_RHO = 0.9


def calibration_platform(node: NodeCapacity) -> str:
    """Table 1 column for a node: SmartNIC and wimpy cores are both cnMIPS (§5), beefy hosts use DPDK."""
    return "smartnic" if node.kind == "smartnic" or node.core_class == "wimpy" else "host_dpdk"


@cache
def _service(service: str, platform: str) -> tuple[float, float, float]:
    """(core-seconds per request, average latency at the knee in ms, p99/average) from Table 1."""
    c = catalog.service_types()[service].calibration[platform]
    return c.cores / c.rps, c.avg_latency_ms, c.p99_latency_ms / c.avg_latency_ms


# Network I/O. Table 1 measured every service with requests arriving from and leaving to the
# network, so its per-request core time S covers one received and one sent message as well as
# the service's own compute. A hop between two instances on one computing node is an in-memory
# FIFO queue (§4) and pays neither; a hop to another node (levels >= 1) pays a send on one end
# and a receive on the other. The per-message I/O cost, in core-seconds:
#  - host (kernel-bypass, DPDK): half the per-request cost of the lightest service in Table 1's
#    host_dpdk column (kvs: 2 cores at 2.005 Mrps = 1.00 us per request for receive + lookup +
#    send), taking all of it as I/O: an upper bound, and 0.50 us per message. (Linux costs
#    3.1 us more per kvs request, 4.11 us: the kernel stack is not what hosts run in this model.)
#  - SmartNIC and wimpy cnMIPS: the hardware traffic manager and memory manager do buffer
#    management and MAC packet handling (§3.1, §4 "hardware traffic controller for Ethernet MAC
#    packet management"), leaving a core to take a work entry and post a send. The paper gives
#    no figure; we charge the same absolute cost as a DPDK host core, 0.50 us per message
#    (assumption). Relative to compute it is much cheaper: 17% of the lightest SmartNIC service
#    (natv4, 5.84 us) against 100% of kvs on the host.
IO_MESSAGES_PER_TABLE1_REQUEST = 2  # Table 1: one receive, one send per request


@cache
def io_per_message_s(platform: str) -> float:
    """Core-seconds a node of this Table 1 platform spends receiving or sending one network message.

    The same for host_dpdk and smartnic (see above): the lightest host_dpdk per-request cost over 2.
    """
    lightest = min(s.calibration["host_dpdk"].cores / s.calibration["host_dpdk"].rps
                   for s in catalog.service_types().values() if "host_dpdk" in s.calibration)
    return lightest / IO_MESSAGES_PER_TABLE1_REQUEST


@cache
def compute_s(service: str, platform: str) -> float:
    """Table 1 core-seconds per request minus its two network messages (never below zero)."""
    return max(_service(service, platform)[0] - IO_MESSAGES_PER_TABLE1_REQUEST * io_per_message_s(platform), 0.0)


def _wait(rho: float) -> float:
    return rho / (1.0 - rho)


def service_latency_ms(service: str, platform: str, load: float) -> float | None:
    """Average latency of a request on a node at `load` (1.0 = the knee); None once it saturates.

    Table 1's latency at the knee, plus the change in an M/M/1 wait (in units of the request's
    core time S) between the knee and this load: L = L1 + S (w(rho) - w(0.9)), w = rho/(1-rho),
    never below S.
    """
    rho = load * KNEE_RHO
    if rho >= 1.0:
        return None
    core_s, avg_ms, _ = _service(service, platform)
    s_ms = core_s * 1e3
    return max(s_ms, avg_ms + s_ms * (_wait(rho) - _wait(KNEE_RHO)))


class _Row:
    def as_dict(self) -> dict:
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self)} | {"source": SOURCE}


@dataclass(frozen=True)
class EdgePrediction(_Row):
    from_: str
    to: str
    level: int  # the most common level among shard pairs
    level_mix: dict[int, float]  # fraction of shard pairs at each level
    latency_us: float  # RTT averaged over shard pairs

    def as_dict(self) -> dict:
        return {"from": self.from_, "to": self.to, "level": self.level, "level_name": LEVEL_NAMES[self.level],
                "level_mix": [{"level": k, "level_name": LEVEL_NAMES[k], "fraction": v, "source": SOURCE}
                              for k, v in self.level_mix.items()],
                "latency_us": self.latency_us, "source": SOURCE}


@dataclass(frozen=True)
class NodePrediction(_Row):
    id: Hashable
    name: str
    kind: str
    server: Hashable
    utilisation: float  # load on its cores, 1.0 = Table 1's rate on every core (the knee)
    power_watts: float  # active power above the server's idle
    services: list[str]


@dataclass(frozen=True)
class ServerPrediction(_Row):
    server: Hashable
    server_type: str
    server_type_assumed: bool
    idle_watts: float
    host_watts: float
    smartnic_watts: float
    power_watts: float
    port_utilisation: float  # busiest port group, fraction of line rate


@dataclass(frozen=True)
class DagNodePrediction(_Row):
    id: str
    service: str
    rps: float  # requests reaching this DAG node
    avg_latency_ms: float | None
    p99_latency_ms: float | None
    smartnic_share: float  # fraction of its primaries on SmartNICs


@dataclass(frozen=True)
class Bottleneck(_Row):
    resource: str  # cores | ports
    node: Hashable  # computing node (for ports: the SmartNIC whose ports, or the host)
    server: Hashable
    dag_node: str | None  # the DAG node with the largest share of the bottleneck's load
    service: str | None
    utilisation: float  # at the evaluated load


@dataclass
class Prediction:
    """What the cost model predicts for a placement at one entry load; `as_dict()` is JSON-ready."""

    offered_rps: float | None
    throughput_rps: float  # served: the offered load, capped at saturation; the knee when none offered
    knee_rps: float | None  # entry rate at which the bottleneck reaches the knee; None: nothing loads a node
    capacity_rps: float | None  # entry rate at which the bottleneck saturates
    saturated: bool
    avg_latency_ms: float | None  # None: unbounded (saturated)
    p99_latency_ms: float | None
    critical_path: list[str]
    power_watts: float
    joules_per_request: float | None
    requests_per_joule: float
    bottleneck: Bottleneck | None
    edges: list[EdgePrediction] = field(default_factory=list)
    nodes: list[NodePrediction] = field(default_factory=list)
    servers: list[ServerPrediction] = field(default_factory=list)
    dag_nodes: list[DagNodePrediction] = field(default_factory=list)
    source: str = SOURCE

    def as_dict(self) -> dict:
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self)} | {"calibration": calibration()}


def calibration() -> dict:
    """The model's own constants, shown beside a prediction so a reader can see what it assumed."""
    return {"host_host_rtt_us": HOST_HOST_RTT_US, "smartnic_host_rtt_us": SMARTNIC_HOST_RTT_US,
            "smartnic_smartnic_rtt_us": SMARTNIC_SMARTNIC_RTT_US, "same_node_rtt_us": SAME_NODE_RTT_US,
            "switch_hop_rtt_us": SWITCH_HOP_RTT_US, "core_utilisation_at_knee": KNEE_RHO,
            "port_utilisation_at_knee": PORT_KNEE_UTILISATION, "wire_overhead_bytes": WIRE_OVERHEAD_BYTES,
            "host_io_per_message_us": io_per_message_s("host_dpdk") * 1e6,
            "smartnic_io_per_message_us": io_per_message_s("smartnic") * 1e6,
            "source": SOURCE}


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _jsonable(v):
    if isinstance(v, _Row):
        return v.as_dict()
    if isinstance(v, float):
        return _finite(v)
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    if v is None or isinstance(v, str | int | bool):
        return v
    return str(v)  # UUIDs and other ids


def _topological(problem: PlacementProblem, dag_nodes: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    parents: dict[str, list[str]] = {d: [] for d in dag_nodes}
    children: dict[str, list[str]] = {d: [] for d in dag_nodes}
    for a, b in problem.edges:
        if a not in parents or b not in parents:
            raise ValueError(f"edge {a} -> {b} names a DAG node without instances")
        parents[b].append(a)
        children[a].append(b)
    waiting = {d: len(p) for d, p in parents.items()}
    order = [d for d in dag_nodes if not waiting[d]]
    for d in order:  # grows while iterating
        for c in children[d]:
            waiting[c] -= 1
            if not waiting[c]:
                order.append(c)
    if len(order) != len(dag_nodes):
        raise ValueError("the DAG has a cycle")
    return order, parents


@dataclass
class _PerRequest:
    """What one request entering the DAG costs: the part of the model that is linear in load."""

    nodes: dict[Hashable, NodeCapacity]
    servers: dict[Hashable, list[NodeCapacity]]
    first: dict[str, InstanceRequest]  # each DAG node's first instance: its service and request size
    primaries: dict[str, list[NodeCapacity]]  # where each DAG node's shards' primaries run, shard order
    services_on: dict[Hashable, set[str]]  # computing node -> services with any instance on it
    order: list[str]  # DAG nodes, topologically
    parents: dict[str, list[str]]
    share: dict[str, float]  # requests reaching each DAG node
    load: dict[Hashable, float]  # computing node load (1.0 = the knee)
    load_by_dag: dict[Hashable, Counter]  # the same split by DAG node, to name a bottleneck
    ports: dict[Hashable, tuple[float, Hashable]]  # server -> (busiest port group, fraction of line rate; its node)
    edges: list[EdgePrediction]


def _per_request(problem: PlacementProblem, nodes: Sequence[NodeCapacity], placement: Placement,
                 entry_shares: Mapping[str, float] | None = None,
                 edge_ratios: Mapping[tuple[str, str], float] | None = None) -> _PerRequest:
    by_id = {n.id: n for n in nodes}
    where = {**problem.fixed, **placement.assignments}
    primaries: dict[str, list[NodeCapacity]] = defaultdict(list)
    services_on: dict[Hashable, set[str]] = defaultdict(set)
    first: dict[str, InstanceRequest] = {}
    for inst in problem.instances:
        node = by_id.get(where.get(inst.key))
        if node is None:
            raise ValueError(f"{inst.describe()} is not placed on any of the given nodes")
        services_on[node.id].add(inst.service)
        first.setdefault(inst.dag_node, inst)
        if inst.replica == 0:  # backups carry no request load
            primaries[inst.dag_node].append(node)
    order, parents = _topological(problem, list(first))
    sources = [d for d in order if not parents[d]]
    sinks = set(order) - {a for a, _ in problem.edges}
    if entry_shares is None:
        share = {d: 1.0 / len(sources) if d in sources else 0.0 for d in order}  # entry load split over sources
    else:
        share = {d: float(entry_shares.get(d, 0.0)) if d in sources else 0.0 for d in order}
    ratio = {e: 1.0 for e in problem.edges} | {e: float(r) for e, r in (edge_ratios or {}).items()}
    for d in order:
        share[d] += sum(share[p] * ratio[(p, d)] for p in parents[d])  # all, unless edge_ratios says less

    load: dict[Hashable, float] = defaultdict(float)
    load_by_dag: dict[Hashable, Counter] = defaultdict(Counter)
    rx: dict[Hashable, float] = defaultdict(float)  # port bits per entry request, by computing node
    tx: dict[Hashable, float] = defaultdict(float)
    bits = {d: (first[d].request_bytes + WIRE_OVERHEAD_BYTES) * 8 for d in order}

    def charge(n: NodeCapacity, d: str, core_s: float) -> None:
        x = core_s / max(n.cpu_cores, 1e-9)
        load[n.id] += x
        load_by_dag[n.id][d] += x

    for d, on in primaries.items():
        per_shard = share[d] / len(on)
        ends = (d in sources) + (d in sinks)  # entry and exit hops are network messages
        for n in on:
            platform = calibration_platform(n)
            charge(n, d, per_shard * (compute_s(first[d].service, platform) + ends * io_per_message_s(platform)))
            if d in sources:
                rx[n.id] += per_shard * bits[d]  # from clients
            if d in sinks:
                tx[n.id] += per_shard * bits[d]  # out of the cluster: the forwarded packet or the reply
    edges = []
    for p, c in problem.edges:
        src, dst, carried = primaries[p], primaries[c], share[p] * ratio[(p, c)]  # requests on the edge
        # Network I/O of the edge: each parent shard sends to every child shard alike; pairs on
        # one computing node use an in-memory queue, every other pair a send and a receive.
        for n, f in zip(src, off_node(src, dst)):
            charge(n, p, carried / len(src) * f * io_per_message_s(calibration_platform(n)))
        for n, f in zip(dst, off_node(dst, src)):
            charge(n, c, carried / len(dst) * f * io_per_message_s(calibration_platform(n)))
        levels, total_rtt = pair_levels(src, dst)
        for n, f in zip(src, through_ports(src, dst)):
            tx[n.id] += carried / len(src) * f * bits[c]
        for n, f in zip(dst, through_ports(dst, src)):
            rx[n.id] += carried / len(dst) * f * bits[c]
        pairs = len(src) * len(dst)
        edges.append(EdgePrediction(from_=p, to=c, level=max(levels, key=levels.get),
                                    level_mix={k: levels[k] / pairs for k in sorted(levels)},
                                    latency_us=total_rtt / pairs))
    servers: dict[Hashable, list[NodeCapacity]] = defaultdict(list)
    for n in nodes:
        servers[n.server].append(n)
    return _PerRequest(by_id, servers, first, primaries, services_on, order, parents, share, load, load_by_dag,
                       {s: busiest_ports(members, rx, tx) for s, members in servers.items()}, edges)


def predict(problem: PlacementProblem, nodes: Sequence[NodeCapacity], placement: Placement, *,
            offered_rps: float | None = None, count_empty_servers: bool = True,
            entry_shares: Mapping[str, float] | None = None,
            edge_ratios: Mapping[tuple[str, str], float] | None = None) -> Prediction:
    """Predict throughput, latency and power of `placement` at `offered_rps` entry requests/s (None: the knee).

    Every server among `nodes` is counted, at least at idle, unless `count_empty_servers` is False.
    The entry load is split evenly over the DAG's sources unless `entry_shares` gives each source DAG node
    its fraction (summing to 1): several applications placed together, each at its own load.
    Every request reaching a DAG node follows each of its out-edges unless `edge_ratios` gives an edge
    (parent, child) the share of the parent's requests that reach the child (a workload's request mix,
    e3.experiments.workload); edges it leaves out carry all of them.
    Raises ValueError when an instance is unplaced or on an unknown node, or the DAG has a cycle.
    """
    c = _per_request(problem, nodes, placement, entry_shares, edge_ratios)
    hot_node = max(c.load, key=c.load.get, default=None)
    hot_server = max(c.ports, key=lambda s: c.ports[s][0], default=None)
    core_max = c.load[hot_node] if hot_node is not None else 0.0
    port_max = c.ports[hot_server][0] if hot_server is not None else 0.0
    knee = min(1.0 / core_max if core_max else math.inf, PORT_KNEE_UTILISATION / port_max if port_max else math.inf)
    capacity = min(1.0 / (KNEE_RHO * core_max) if core_max else math.inf, 1.0 / port_max if port_max else math.inf)
    rate = knee if offered_rps is None else float(offered_rps)
    rate = rate if math.isfinite(rate) else 0.0
    saturated = rate >= capacity
    served = min(rate, capacity)
    load = {nid: rate * x for nid, x in c.load.items()}

    bottleneck = None
    if core_max and core_max * PORT_KNEE_UTILISATION >= port_max:
        top = c.load_by_dag[hot_node].most_common(1)[0][0]
        bottleneck = Bottleneck("cores", hot_node, c.nodes[hot_node].server, top, c.first[top].service,
                                load[hot_node])
    elif port_max:
        bottleneck = Bottleneck("ports", c.ports[hot_server][1], hot_server, None, None, rate * port_max)

    dag_rows, avg_ms, p99_ms, path = _latencies(c, load, saturated, served)
    server_rows, node_rows = _power(c, load, rate, count_empty_servers)
    power = sum(s.power_watts for s in server_rows)
    return Prediction(
        offered_rps=offered_rps, throughput_rps=served, knee_rps=_finite(knee), capacity_rps=_finite(capacity),
        saturated=saturated,
        avg_latency_ms=avg_ms, p99_latency_ms=p99_ms, critical_path=path, power_watts=power,
        joules_per_request=joules_per_request(power, served),
        requests_per_joule=requests_per_joule(power, served) or 0.0,
        bottleneck=bottleneck, edges=c.edges, nodes=node_rows, servers=server_rows, dag_nodes=dag_rows)


def _latencies(c: _PerRequest, load: dict[Hashable, float], saturated: bool,
               served: float) -> tuple[list[DagNodePrediction], float | None, float | None, list[str]]:
    """Per DAG node: the mean of its shards' average latencies and the worst of their p99s; then the
    longest source-to-sink path by average, and by p99 (edges count their mean RTT in both)."""
    rows, avg, p99 = [], {}, {}
    for d in c.order:
        service = c.first[d].service
        shards = [(service_latency_ms(service, calibration_platform(n), load[n.id]),
                   _service(service, calibration_platform(n))[2]) for n in c.primaries[d]]
        bounded = not saturated and all(ms is not None for ms, _ in shards)
        avg[d] = sum(ms for ms, _ in shards) / len(shards) if bounded else None
        p99[d] = max(ms * ratio for ms, ratio in shards) if bounded else None
        nic = sum(n.kind == "smartnic" for n in c.primaries[d]) / len(c.primaries[d])
        rows.append(DagNodePrediction(d, service, c.share[d] * served, avg[d], p99[d], nic))
    edge_ms = {(e.from_, e.to): e.latency_us / 1e3 for e in c.edges}
    avg_ms, path = _longest(c.order, c.parents, avg, edge_ms)
    p99_ms, _ = _longest(c.order, c.parents, p99, edge_ms)
    return rows, avg_ms, p99_ms, path


def _power(c: _PerRequest, load: dict[Hashable, float], rate: float,
           count_empty_servers: bool) -> tuple[list[ServerPrediction], list[NodePrediction]]:
    server_rows, node_rows = [], []
    for s, members in c.servers.items():
        if not count_empty_servers and not any(c.services_on.get(n.id) for n in members):
            continue
        sp = power_model.server_power(s, members, load, c.services_on)
        server_rows.append(ServerPrediction(s, sp.server_type, sp.server_type_assumed, sp.idle_watts, sp.host_watts,
                                            sp.smartnic_watts, sp.power_watts, rate * c.ports[s][0]))
        stype = catalog.server_types()[sp.server_type]
        for n in members:
            if c.services_on.get(n.id):
                watts = power_model.node_active_watts(n, stype, load.get(n.id, 0.0), c.services_on[n.id])
                node_rows.append(NodePrediction(n.id, n.name, n.kind, s, load.get(n.id, 0.0), watts,
                                                sorted(c.services_on[n.id])))
    return server_rows, node_rows


def _longest(order: list[str], parents: dict[str, list[str]], node_ms: dict[str, float | None],
             edge_ms: dict[tuple[str, str], float]) -> tuple[float | None, list[str]]:
    """Longest source-to-sink path (node latencies plus edge RTTs); None if any node's latency is unbounded."""
    if any(v is None for v in node_ms.values()):
        return None, []
    best: dict[str, float] = {}
    prev: dict[str, str | None] = {}
    for d in order:
        best[d], prev[d] = max(((best[p] + edge_ms[(p, d)], p) for p in parents[d]), default=(0.0, None))
        best[d] += node_ms[d]
    end = max(order, key=best.get)
    path = [end]
    while prev[path[-1]] is not None:
        path.append(prev[path[-1]])
    return best[end], path[::-1]


def compare(predictions: dict[str, Prediction], baseline: str | None = None) -> dict:
    """Side-by-side rows with ratios against `baseline` (default: the first), JSON-ready."""
    if not predictions:
        return {"source": SOURCE, "baseline": None, "rows": []}
    baseline = baseline or next(iter(predictions))
    base = predictions[baseline]
    keys = ("throughput_rps", "requests_per_joule", "joules_per_request", "power_watts", "avg_latency_ms",
            "p99_latency_ms")
    rows = []
    for name, p in predictions.items():
        row = {"name": name, **{k: _jsonable(getattr(p, k)) for k in keys}}
        for k in keys:
            a, b = getattr(p, k), getattr(base, k)
            row[f"{k.removesuffix('_ms').removesuffix('_rps').removesuffix('_watts')}_ratio"] = (
                a / b if a is not None and b and math.isfinite(a / b) else None)
        rows.append(row | {"source": SOURCE})
    return {"source": SOURCE, "baseline": baseline, "rows": rows}
