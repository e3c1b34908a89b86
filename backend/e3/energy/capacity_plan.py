"""The capacity planner: the paper's Figure 10 as a tool, run before buying (docs/energy.md, "Capacity planner").

Given applications (DAG spec documents, each at its offered load), candidate server types (Table 4's, or an
operator's own with their list price and idle/peak watts) and years of ownership, every candidate cluster
(one server type, 1, 2, ... servers) is built as the placement code sees a cluster, the applications are
placed on it together by HCM, the placement cost model predicts its throughput, latency and per-node load at
the offered load, and the paper's cost efficiency (e3.energy.cost) prices it for each year. Candidates that
carry the load rank by requests per dollar at the last year; those that cannot come after, saying why.

Every figure is the model's (`source: "model"`): nothing here is measured. Pure: no database, no web.
"""

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from e3.catalog import ServerType
from e3.energy.cost import CostInputs, CostPoint, ServerPowerRange, capex_of, cost_over_years, watts_at_utilisation
from e3.energy.joules import joules_per_request
from e3.placement import problem_from_document, run
from e3.placement.cost_model import Prediction, predict
from e3.placement.fattree import fattree_nodes
from e3.placement.model import RESOURCE_UNITS, RESOURCES, NodeCapacity, PlacementError, PlacementProblem

SOURCE = "model"
DEFAULT_MAX_SERVERS = 16  # per server type: Figure 10's clusters have 1 to 4 servers
MAX_INSTANCES = 1000  # of all the applications together: the 8 paper applications have 672
MAX_SERVERS = 16  # per server type; with MAX_INSTANCES, keeps one request under about 2 s (docs/energy.md)
COUNTS_PAST_FEASIBLE = 2  # after the fewest servers that carry the load, this many more are priced too
SERVERS_PER_RACK = 40  # as the cluster generator (fattree) lays servers out
RACKS_PER_POD = 8
LOAD_TOLERANCE = 1e-9  # relative: a served rate this close to the load carries it
CUSTOM_HW = "custom (given in the request)"  # a custom server type's `hw`


@dataclass(frozen=True)
class PlanApplication:
    """One application to place: its name, its DAG spec document (validated before) and its offered load."""

    name: str
    document: dict
    load_rps: float


@dataclass(frozen=True)
class PlacedNode:
    """Where one DAG node's instances went on a candidate: counts by server type and node kind."""

    application: str
    dag_node: str
    service: str
    instances: dict[tuple[str, str], int]  # (server type, node kind) -> instances (primaries and backups)


@dataclass(frozen=True)
class Candidate:
    """One candidate cluster, predicted and priced."""

    server_type: str
    count: int
    feasible: bool
    reason: str | None  # why it cannot carry the load; None when it can
    capex_usd: float | None
    power_watts: float | None  # wall power at the offered load (at the predicted utilisation)
    utilisation: float | None  # 0 idle .. 1 peak, the cluster's (see `server_utilisation`)
    throughput_rps: float | None  # served at the offered load
    capacity_rps: float | None  # the entry rate at which the placement saturates
    avg_latency_ms: float | None
    p99_latency_ms: float | None
    joules_per_request: float | None
    bottleneck: str | None
    points: list[CostPoint] = field(default_factory=list)  # years 1..N; empty when infeasible
    placement: list[PlacedNode] = field(default_factory=list)

    @property
    def requests_per_usd(self) -> float:
        """The ranking key: requests per dollar after the longest ownership priced (0 when unpriced)."""
        return self.points[-1].requests_per_usd if self.points else 0.0


@dataclass(frozen=True)
class CapacityPlan:
    load_rps: float
    years: int
    usd_per_kwh: float
    candidates: list[Candidate]  # ranked: feasible by requests per dollar, then the infeasible
    evaluated: int  # candidate clusters placed and predicted (more than listed: see `plan_capacity`)
    assumptions: list[str]


def joint_problem(applications: Sequence[PlanApplication]) -> tuple[PlacementProblem, dict[str, float]]:
    """The applications as one placement problem (DAG node ids prefixed `app/`), and each source's share of
    the total entry load: an application's share of the total, split evenly over its sources."""
    total = sum(a.load_rps for a in applications)
    instances, edges, shares = [], [], {}
    for app in applications:
        problem = problem_from_document(app.document)
        prefix = f"{app.name}/"
        instances.extend(replace(i, dag_node=prefix + i.dag_node) for i in problem.instances)
        edges.extend((prefix + a, prefix + b) for a, b in problem.edges)
        sources = problem.sources()
        shares.update({prefix + s: app.load_rps / total / len(sources) for s in sources})
    return PlacementProblem(instances=instances, edges=edges), shares


def node_draw(kind: str, core_class: str, load: float) -> float:
    """How far from idle toward peak a computing node with instances draws, 0..1: a beefy host in proportion
    to its load (1.0 = the knee, capped); a SmartNIC or a wimpy host (cnMIPS cores: no sleep states) fully."""
    if kind == "smartnic" or core_class == "wimpy":
        return 1.0
    return min(max(load, 0.0), 1.0)


def server_utilisation(nodes: Sequence[NodeCapacity], prediction: Prediction) -> float:
    """The cluster's utilisation (0 idle .. 1 peak) for Table 4's linear idle-to-peak power: each computing
    node's draw (`node_draw`; 0 without instances) averaged over all the cluster's cores."""
    load = {n.id: n.utilisation for n in prediction.nodes}  # only nodes with instances are listed
    cores = sum(n.cpu_cores for n in nodes)
    drawn = sum(n.cpu_cores * node_draw(n.kind, n.core_class, load[n.id]) for n in nodes if n.id in load)
    return drawn / cores if cores else 0.0


def _placed(problem: PlacementProblem, assignments: dict, nodes: Sequence[NodeCapacity]) -> list[PlacedNode]:
    by_id = {n.id: n for n in nodes}
    counts: dict[str, Counter] = defaultdict(Counter)
    services = {}
    for inst in problem.instances:
        node = by_id[assignments[inst.key]]
        counts[inst.dag_node][(node.server_type, node.kind)] += 1
        services[inst.dag_node] = inst.service
    return [PlacedNode(*dag_node.split("/", 1), services[dag_node], dict(c)) for dag_node, c in counts.items()]


def _infeasible(server_type: ServerType, count: int, reason: str, capex: float | None,
                prediction: Prediction | None = None) -> Candidate:
    p = prediction
    return Candidate(server_type.name, count, False, reason, capex, None, None,
                     p.throughput_rps if p else None, p.capacity_rps if p else None,
                     p.avg_latency_ms if p else None, p.p99_latency_ms if p else None, None,
                     _bottleneck(p) if p else None)


def _bottleneck(p: Prediction) -> str | None:
    b = p.bottleneck
    if b is None:
        return None
    what = f" ({b.service}, DAG node {b.dag_node})" if b.service else ""
    return f"{b.resource} of {b.node}{what}"


def _reservations_exceed(problem: PlacementProblem, nodes: Sequence[NodeCapacity]) -> str | None:
    """Why no placement can exist, when the instances reserve more of a resource than the whole cluster has
    (checked first: it costs nothing, where a placement that fails can cost a good part of a second)."""
    for resource in RESOURCES:
        need = sum(i.resource(resource) for i in problem.instances)
        have = sum(getattr(n, resource) for n in nodes)
        if need > have + 1e-9:
            unit = RESOURCE_UNITS[resource]
            return (f"placement fails: the instances reserve {need:,.6g} {unit} of {resource.split('_')[0]} in all, "
                    f"the servers have {have:,.6g} {unit}")
    return None


def evaluate(applications: Sequence[PlanApplication], server_type: ServerType, count: int, *, years: int,
             usd_per_kwh: float, max_p99_latency_ms: float | None = None) -> Candidate:
    """Place the applications on `count` servers of `server_type` with HCM, predict, and price the result."""
    load = sum(a.load_rps for a in applications)
    capex = capex_of({server_type.name: count}, {server_type.name: server_type.cost_usd}).usd
    problem, shares = joint_problem(applications)
    nodes = fattree_nodes(server_type, count, SERVERS_PER_RACK, RACKS_PER_POD)
    too_small = _reservations_exceed(problem, nodes)
    if too_small:
        return _infeasible(server_type, count, too_small, capex)
    try:
        placement = run("hcm", problem, nodes)
    except PlacementError as exc:
        return _infeasible(server_type, count, f"placement fails: {exc.message}", capex)
    prediction = predict(problem, nodes, placement, offered_rps=load, entry_shares=shares)
    short = prediction.saturated or prediction.throughput_rps < load * (1 - LOAD_TOLERANCE)
    if short or prediction.avg_latency_ms is None:
        capacity = prediction.capacity_rps
        return _infeasible(server_type, count, f"predicted capacity {capacity:,.0f} req/s is below the load "
                           f"{load:,.0f} req/s (bottleneck: {_bottleneck(prediction)})", capex, prediction)
    if max_p99_latency_ms is not None and prediction.p99_latency_ms > max_p99_latency_ms:
        return _infeasible(server_type, count, f"predicted p99 latency {prediction.p99_latency_ms:.3f} ms is over "
                           f"the bound {max_p99_latency_ms:g} ms", capex, prediction)
    utilisation = server_utilisation(nodes, prediction)
    power_range = {server_type.name: ServerPowerRange(server_type.idle_watts, server_type.peak_watts)}
    watts = watts_at_utilisation({server_type.name: count}, power_range, utilisation)
    served = prediction.throughput_rps
    points = cost_over_years(CostInputs(throughput_rps=served, watts=watts, capex_usd=capex,
                                        usd_per_kwh=usd_per_kwh), years)
    if None in points:
        return _infeasible(server_type, count, "the inputs give no cost efficiency (a price or power is missing "
                           "or zero)", capex, prediction)
    return Candidate(server_type.name, count, True, None, capex, watts, utilisation, served,
                     prediction.capacity_rps, prediction.avg_latency_ms, prediction.p99_latency_ms,
                     joules_per_request(watts, served), _bottleneck(prediction), points,
                     _placed(problem, placement.assignments, nodes))


def _rank_key(c: Candidate) -> tuple:
    if c.feasible:
        return (0, -c.requests_per_usd, c.count, c.server_type)
    return (1, -(c.capacity_rps or 0.0), c.server_type, c.count)


def rank(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Feasible first, by requests per dollar after the longest ownership (best first; ties: fewer servers);
    then the infeasible, those predicted to carry most first."""
    return sorted(candidates, key=_rank_key)


def plan_capacity(applications: Sequence[PlanApplication], server_types: Sequence[ServerType], *, years: int,
                  usd_per_kwh: float, price_source: str, max_servers: int = DEFAULT_MAX_SERVERS,
                  max_p99_latency_ms: float | None = None) -> CapacityPlan:
    """Rank candidate clusters of each server type, 1..`max_servers` servers.

    Per type, counts grow from 1 until the load is carried, and COUNTS_PAST_FEASIBLE more are priced
    (more servers than that only add CAPEX and idle watts). Listed: every feasible candidate, and per
    type the largest infeasible count tried (the one that says why fewer servers, or that type, fall short).
    """
    if not applications or any(not (a.load_rps > 0 and math.isfinite(a.load_rps)) for a in applications):
        raise ValueError("every application needs a positive, finite load")
    listed, evaluated = [], 0
    for stype in server_types:
        first_feasible, last_infeasible = None, None
        for count in range(1, max_servers + 1):
            if first_feasible is not None and count > first_feasible + COUNTS_PAST_FEASIBLE:
                break
            candidate = evaluate(applications, stype, count, years=years, usd_per_kwh=usd_per_kwh,
                                 max_p99_latency_ms=max_p99_latency_ms)
            evaluated += 1
            if candidate.feasible:
                first_feasible = count if first_feasible is None else first_feasible
                listed.append(candidate)
            elif first_feasible is None:
                last_infeasible = candidate
        if last_infeasible is not None:
            listed.append(last_infeasible)
    load = sum(a.load_rps for a in applications)
    return CapacityPlan(load_rps=load, years=years, usd_per_kwh=usd_per_kwh, candidates=rank(listed),
                        evaluated=evaluated,
                        assumptions=assumptions(server_types, usd_per_kwh, price_source, max_p99_latency_ms))


def assumptions(server_types: Sequence[ServerType], usd_per_kwh: float, price_source: str,
                max_p99_latency_ms: float | None) -> list[str]:
    """What the plan assumed, in words, shown beside its figures."""
    custom = [t.name for t in server_types if t.hw == CUSTOM_HW]
    out = [
        "Every figure is predicted by E3's models (source: model); nothing is measured.",
        "CAPEX is the servers' list price: paper Table 4 for its server types"
        + (f", the request's for {', '.join(custom)}" if custom else "")
        + "; switches, cabling, racks and cooling are not included.",
        "Power is each server's wall power linear from its Table 4 idle to its peak watts at the predicted "
        "utilisation: a beefy host in proportion to its load (the knee = peak), a SmartNIC or a wimpy host with "
        "any instance at full power (cnMIPS cores have no sleep states), averaged over the cluster's cores; "
        "servers without instances draw idle power. The paper's Figure 10 assumes peak power instead.",
        "Throughput is the offered load when the placement carries it (the cost model's prediction); cost "
        "efficiency = Throughput x T / (CAPEX + Power x T x Electricity), paper §5.5, at that load all year.",
        f"Electricity costs ${usd_per_kwh:g}/kWh ("
        + ("the paper's figure: the average U.S. price" if price_source == "paper" else "given in the request")
        + ").",
        "Placement is HCM (paper Algorithm 1) of the applications together, with their shards and replicas as "
        f"given (the planner does not resize them), on servers {SERVERS_PER_RACK} to a rack.",
        "Throughput, latency and node load come from the placement cost model (docs/placement-cost-model.md): "
        "paper Table 1 service times and latencies, an M/M/1 queue past the knee, per-level network RTTs; "
        "interference between services on a node beyond sharing its cores is not modelled.",
    ]
    if max_p99_latency_ms is not None:
        out.append(f"A candidate whose predicted p99 latency is over {max_p99_latency_ms:g} ms is infeasible.")
    return out



def custom_server_type(*, name: str, cost_usd: float, idle_watts: float, peak_watts: float, host_cores: int,
                       host_core_class: str = "beefy", host_memory_gb: int = 64, smartnics: int = 0,
                       smartnic_cores: int = 12, smartnic_memory_gb: int = 4, bandwidth_gbps: int = 20) -> ServerType:
    """An operator's own server type, in the catalogue's shape (Table 4's columns)."""
    if peak_watts < idle_watts:
        raise ValueError("peak_watts is below idle_watts")
    return ServerType(name=name, cost_usd=cost_usd, host_cores=host_cores, host_core_class=host_core_class,
                      host_memory_gb=host_memory_gb, smartnics=smartnics,
                      smartnic_cores=smartnic_cores if smartnics else 0,
                      smartnic_memory_gb=smartnic_memory_gb if smartnics else 0,
                      memory_gb=host_memory_gb + smartnics * smartnic_memory_gb, bandwidth_gbps=bandwidth_gbps,
                      idle_watts=idle_watts, peak_watts=peak_watts, hw=CUSTOM_HW)
