"""The ILP baseline, pure: a hand-checked optimum, the time cap, the shared rules, and infeasible problems."""

import pytest

from e3 import catalog
from e3.placement.constraints import PlacementState, can_host
from e3.placement.first_fit import first_fit
from e3.placement.ilp import PRICES, ilp
from e3.placement.instances import DagNodeDemand, expand_instances
from e3.placement.model import LEVEL_SAME_SERVER, NodeCapacity, PlacementError, PlacementProblem, copy_nodes


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: placement is pure and needs no database."""


def servers(n: int, per_rack: int = 40) -> list[NodeCapacity]:
    """Type2-SmartNIC servers: a 16-core host and four 12-core SmartNICs each."""
    nodes = []
    for s in range(n):
        rack = f"r{s // per_rack}"
        nodes.append(NodeCapacity(f"s{s}/host", f"s{s}/host", "host", f"s{s}", rack, 16.0, 131072, 40000))
        nodes += [NodeCapacity(f"s{s}/nic{k}", f"s{s}/nic{k}", "smartnic", f"s{s}", rack, 12.0, 4096, 10000)
                  for k in range(4)]
    return nodes


def template_problem(name: str, copies: int = 1) -> PlacementProblem:
    """A paper application from the catalogue, `copies` times under distinct DAG node ids."""
    spec = catalog.template(name)["spec"]
    demands = [DagNodeDemand(f"{c}.{n['id']}", n["service"], n.get("shards", 1), n.get("replicas", 1),
                             n.get("platform", "any")) for c in range(copies) for n in spec["nodes"]]
    edges = [(f"{c}.{e['from']}", f"{c}.{e['to']}") for c in range(copies) for e in spec["edges"]]
    return PlacementProblem(expand_instances(demands, catalog.service_types()), edges)


def assert_feasible(problem: PlacementProblem, nodes_before: list[NodeCapacity], placement) -> None:
    """Replay the placement on empty copies of the nodes through the shared rules."""
    fresh = {n.id: n for n in copy_nodes(nodes_before)}
    for n in fresh.values():
        n.used = dict.fromkeys(n.used, 0.0)
    state = PlacementState(problem.anti_affinity)
    for inst in problem.instances:
        node = fresh[placement.assignments[inst.key]]
        assert can_host(inst, node, state.blocked(inst)), f"{inst.describe()} may not go on {node.id}"
        node.reserve(inst)
        state.add(inst, node)


def _problem(*dag_nodes, edges=()):
    demands = [DagNodeDemand(*n) for n in dag_nodes]
    return PlacementProblem(expand_instances(demands, catalog.service_types()), list(edges))


def test_finds_the_hand_checked_optimum():
    # Two servers in one rack; s1's host already runs something; s1's SmartNIC has too little bandwidth
    # for the API gateway. The sql shard's two replicas must take both hosts (one of them shares s1's),
    # and the gateway talks to the primary: cheapest on the SmartNIC of the primary's server (PCIe),
    # which only s0 offers. First-fit instead stacks the gateway and the primary on s0's host.
    nodes = servers(2, per_rack=2)
    nodes = [n for n in nodes if n.id in ("s0/host", "s0/nic0", "s1/host", "s1/nic0")]
    nodes[2].used["cpu_cores"] = 1.0
    nodes[3].bandwidth_mbps = 100
    problem = _problem(("api", "api_gateway", 1, 0, "any"), ("db", "sql", 1, 1, "any"), edges=[("api", "db")])
    placement = ilp(problem, nodes, time_limit_s=30)
    assert placement.assignments == {("api", 0, 0): "s0/nic0", ("db", 0, 0): "s0/host", ("db", 0, 1): "s1/host"}
    assert placement.optimal is True
    assert placement.details["status"] == "Optimal"
    assert placement.details["shared_instances"] == 1
    assert placement.details["communication"] == pytest.approx(PRICES[LEVEL_SAME_SERVER])
    assert placement.details["cost"] == pytest.approx(1 + PRICES[LEVEL_SAME_SERVER])
    assert nodes[1].used["cpu_cores"] == pytest.approx(0.5)  # reserved on the nodes given
    ff = first_fit(problem, copy_nodes(nodes))
    assert ff.assignments[("api", 0, 0)] == ff.assignments[("db", 0, 0)] == "s0/host"


def test_a_tiny_time_cap_returns_a_valid_incumbent_not_an_error():
    problem = template_problem("nfv-din")  # 60 instances x 30 nodes: one complete model, ~0.5 s to prove
    nodes = servers(6)
    placement = ilp(problem, nodes, time_limit_s=0.01)
    assert placement.details["complete_model"] is True
    assert placement.optimal is False
    assert placement.details["status"] == "TimeLimit"
    assert set(placement.assignments) == {inst.key for inst in problem.instances}
    assert_feasible(problem, nodes, placement)


def test_split_model_on_a_bigger_case_is_never_called_optimal():
    problem = template_problem("iot-dh", copies=3)
    nodes = servers(20)
    placement = ilp(problem, nodes, time_limit_s=0.5)
    assert placement.details["complete_model"] is False
    assert placement.details["blocks"] == 3
    assert placement.optimal is False
    assert_feasible(problem, nodes, placement)


def test_given_time_it_spreads_what_first_fit_stacks():
    problem = template_problem("nfv-fin", copies=1)
    nodes = servers(12)
    ff = first_fit(problem, copy_nodes(nodes))
    placement = ilp(problem, copy_nodes(nodes), time_limit_s=20)
    stacked = len(ff.assignments) - len(set(ff.assignments.values()))
    assert placement.details["shared_instances"] < stacked
    assert_feasible(problem, nodes, placement)


def test_rules_hold_pinning_fault_domains_and_anti_affinity():
    problem = template_problem("iot-dh", copies=1)
    problem.anti_affinity = True
    nodes = servers(30)
    placement = ilp(problem, nodes, time_limit_s=10)
    assert_feasible(problem, nodes, placement)
    kinds = {n.id: n.kind for n in nodes}
    assert all(kinds[placement.assignments[i.key]] == "host" for i in problem.instances if i.service == "sql")


def test_finds_a_placement_first_fit_misses():
    # First-fit puts the half-core gateway on the 1-core host, leaving no room for the 1-core knn.
    nodes = [NodeCapacity("a", "a", "host", "sa", "r0", 1.0, 4096, 10000),
             NodeCapacity("b", "b", "host", "sb", "r0", 0.5, 4096, 10000)]
    problem = _problem(("gw", "api_gateway", 1, 0, "any"), ("k", "knn", 1, 0, "any"))
    with pytest.raises(PlacementError):
        first_fit(problem, copy_nodes(nodes))
    placement = ilp(problem, nodes)
    assert placement.assignments == {("gw", 0, 0): "b", ("k", 0, 0): "a"}


def test_infeasible_problem_raises_placement_error_naming_the_cause():
    nodes = servers(2)
    problem = _problem(("db", "sql", 1, 2, "any"))  # three replicas, two servers
    with pytest.raises(PlacementError) as exc:
        ilp(problem, nodes)
    assert exc.value.resource == "fault_domains"
    assert "db (sql) shard 0 backup 2" in exc.value.message
    assert all(n.used["cpu_cores"] == 0 for n in nodes)
