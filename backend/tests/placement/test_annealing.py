"""Simulated annealing (Service Fabric style), pure: the shared rules hold, load spreads, seeds reproduce."""

import statistics

import pytest

from e3 import catalog
from e3.placement.annealing import annealing
from e3.placement.constraints import PlacementState, can_host
from e3.placement.first_fit import first_fit
from e3.placement.instances import DagNodeDemand, expand_instances
from e3.placement.model import RESOURCES, NodeCapacity, PlacementError, PlacementProblem, copy_nodes


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: placement is pure and needs no database."""


def servers(n: int, per_rack: int = 40, racks_per_pod: int = 8) -> list[NodeCapacity]:
    """Type2-SmartNIC servers: a 16-core host and four 12-core SmartNICs each."""
    nodes = []
    for s in range(n):
        rack = s // per_rack
        pod = rack // racks_per_pod
        nodes.append(NodeCapacity(f"s{s}/host", f"s{s}/host", "host", f"s{s}", f"r{rack}", 16.0, 131072, 40000,
                                  pod=pod))
        for k in range(4):
            nodes.append(NodeCapacity(f"s{s}/nic{k}", f"s{s}/nic{k}", "smartnic", f"s{s}", f"r{rack}", 12.0, 4096,
                                      10000, pod=pod))
    return nodes


def template_problem(name: str, copies: int = 1) -> PlacementProblem:
    """A paper application from the catalogue, `copies` times under distinct DAG node ids."""
    demands, edges = [], []
    spec = catalog.template(name)["spec"]
    for c in range(copies):
        for node in spec["nodes"]:
            demands.append(DagNodeDemand(f"{c}.{node['id']}", node["service"], node.get("shards", 1),
                                         node.get("replicas", 1), node.get("platform", "any")))
        edges += [(f"{c}.{e['from']}", f"{c}.{e['to']}") for e in spec["edges"]]
    return PlacementProblem(expand_instances(demands, catalog.service_types()), edges)


def assert_feasible(problem: PlacementProblem, nodes_before: list[NodeCapacity], placement) -> None:
    """Replay the placement on fresh copies through the shared rules."""
    fresh = {n.id: n for n in copy_nodes(nodes_before)}
    for n in fresh.values():
        for r in RESOURCES:
            n.used[r] = 0.0
    state = PlacementState(problem.anti_affinity)
    for inst in problem.instances:
        node = fresh[placement.assignments[inst.key]]
        assert can_host(inst, node, state.blocked(inst)), f"{inst.describe()} may not go on {node.id}"
        node.reserve(inst)
        state.add(inst, node)


def _utilisation_spread(nodes: list[NodeCapacity]) -> float:
    return statistics.mean(statistics.pstdev(n.used[r] / getattr(n, r) for n in nodes) for r in RESOURCES)


def test_rules_hold_capacity_fault_domains_and_sql_on_hosts():
    problem = template_problem("iot-dh", copies=2)
    nodes = servers(6)
    placement = annealing(problem, nodes, seed=3)
    assert set(placement.assignments) == {inst.key for inst in problem.instances}
    assert_feasible(problem, nodes, placement)
    kinds = {n.id: n.kind for n in nodes}
    assert all(kinds[placement.assignments[i.key]] == "host" for i in problem.instances if i.service == "sql")
    for node in nodes:  # reserved on the nodes given, never beyond capacity
        assert all(node.used[r] <= getattr(node, r) + 1e-9 for r in RESOURCES)
    assert sum(n.used["cpu_cores"] for n in nodes) == pytest.approx(sum(i.cpu_cores for i in problem.instances))


def test_anti_affinity_when_asked():
    problem = template_problem("nfv-fin")
    problem.anti_affinity = True
    nodes = servers(40)
    placement = annealing(problem, nodes, seed=1)
    assert_feasible(problem, nodes, placement)
    by_dag = {}
    for inst in problem.instances:
        by_dag.setdefault(inst.dag_node, []).append(placement.assignments[inst.key].split("/")[0])
    assert all(len(set(s)) == len(s) for s in by_dag.values())


def test_spreads_load_more_evenly_than_first_fit():
    problem = template_problem("rta-shm", copies=2)
    ff_nodes, sa_nodes = servers(8), servers(8)
    ff = first_fit(problem, ff_nodes)
    sa = annealing(problem, sa_nodes, seed=0)
    assert _utilisation_spread(sa_nodes) < 0.5 * _utilisation_spread(ff_nodes)
    assert len(set(sa.assignments.values())) > 2 * len(set(ff.assignments.values()))
    assert sa.details["final_cost"] < sa.details["initial_cost"]
    assert sa.details["iterations"] > 0 and 0 < sa.details["accepted_moves"] <= sa.details["iterations"]


def test_same_seed_same_placement_other_seed_other_placement():
    problem = template_problem("nfv-din", copies=2)
    first = annealing(problem, servers(6), seed=7)
    again = annealing(problem, servers(6), seed=7)
    other = annealing(problem, servers(6), seed=8)
    assert first.assignments == again.assignments
    assert first.details == {**again.details}
    assert other.assignments != first.assignments


def test_communication_weight_pulls_neighbours_closer():
    problem = template_problem("nfv-fin")
    spread = annealing(problem, servers(40), seed=2)
    near = annealing(problem, servers(40), seed=2, weights={"communication": 5.0})
    assert near.details["communication"] < spread.details["communication"]


def test_fixed_instances_stay_and_count():
    problem = template_problem("nfv-fin")
    pinned = problem.instances[0]
    problem.fixed = {pinned.key: "s3/nic2"}
    nodes = servers(10)
    placement = annealing(problem, nodes, seed=0)
    assert placement.assignments[pinned.key] == "s3/nic2"
    assert_feasible(problem, nodes, placement)


def test_nothing_fits_raises_placement_error():
    nodes = [n for n in servers(2) if n.kind == "smartnic"]
    problem = template_problem("iot-dh")  # sql needs a host
    with pytest.raises(PlacementError) as exc:
        annealing(problem, nodes)
    assert "sql" in exc.value.message


def test_progress_reaches_the_total():
    seen = []
    problem = template_problem("nfv-fin")
    annealing(problem, servers(10), progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (len(problem.instances), len(problem.instances))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def _pinned_after_flexible() -> tuple[PlacementProblem, list[NodeCapacity]]:
    """One server whose host has room for one instance: a flexible one listed before one pinned to the host."""
    from e3.placement.model import InstanceRequest

    flexible = InstanceRequest("a", "kvs", 0, 0, "any", 2.0, 512, 100)
    pinned = InstanceRequest("b", "sql", 0, 0, "host", 2.0, 512, 100)
    nodes = [NodeCapacity("s0/host", "s0/host", "host", "s0", "r0", 2.0, 8192, 10000),
             NodeCapacity("s0/nic0", "s0/nic0", "smartnic", "s0", "r0", 2.0, 4096, 10000)]
    return PlacementProblem(instances=[flexible, pinned], edges=[("a", "b")]), nodes


def test_a_start_that_fills_the_host_before_a_pinned_instance_is_retried_most_constrained_first():
    problem, nodes = _pinned_after_flexible()
    with pytest.raises(PlacementError):  # first-fit in the given order puts `a` on the host
        first_fit(problem, copy_nodes(nodes))
    placement = annealing(problem, copy_nodes(nodes), iterations=200)
    assert placement.assignments == {("a", 0, 0): "s0/nic0", ("b", 0, 0): "s0/host"}
    assert placement.details["start"] == "first_fit, most constrained first"


def test_no_feasible_start_names_first_fits_reason():
    problem, nodes = _pinned_after_flexible()
    with pytest.raises(PlacementError, match=r"^b \(sql\)"):
        annealing(problem, copy_nodes(nodes[:1]), iterations=200)  # no SmartNIC: only one of the two fits
