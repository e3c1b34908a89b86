"""Properties every algorithm keeps, over random DAGs and clusters: a placement breaks no rule, and a
failure is a PlacementError naming the instance and what it lacks."""

from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from e3 import catalog
from e3.placement import ALGORITHMS
from e3.placement.instances import DagNodeDemand, expand_instances
from e3.placement.model import RESOURCES, NodeCapacity, PlacementError, PlacementProblem, copy_nodes

BASELINE_ALGORITHMS = ("hcm", "first_fit", "random")
ERROR_RESOURCES = set(RESOURCES) | {"fault_domains", "anti_affinity", "combined", None}


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: placement is pure and needs no database."""


@st.composite
def clusters(draw):
    nodes = []
    for pod in range(draw(st.integers(1, 2))):
        for rack in range(draw(st.integers(1, 2))):
            for server in range(draw(st.integers(1, 3))):
                name = f"p{pod}r{rack}s{server}"
                kinds = ["host"] * draw(st.integers(0, 1)) + ["smartnic"] * draw(st.integers(0, 2))
                for k, kind in enumerate(kinds):
                    node = NodeCapacity(f"{name}/{k}", f"{name}/{k}", kind, name, f"p{pod}r{rack}",
                                        draw(st.sampled_from([0.5, 1.0, 4.0, 8.0])),
                                        draw(st.sampled_from([256, 2048, 8192])),
                                        draw(st.sampled_from([200, 10000])), pod=pod,
                                        outstanding_requests=draw(st.sampled_from([0.0, 5.0])))
                    node.used["cpu_cores"] = draw(st.sampled_from([0.0, node.cpu_cores / 2]))
                    nodes.append(node)
    return nodes


@st.composite
def problems(draw):
    services = sorted(catalog.service_types())
    count = draw(st.integers(1, 4))
    demands = [DagNodeDemand(f"v{i}", draw(st.sampled_from(services)), draw(st.integers(1, 3)),
                             draw(st.integers(0, 2)), draw(st.sampled_from(["any", "any", "host", "smartnic"])))
               for i in range(count)]
    pairs = [(f"v{i}", f"v{j}") for i in range(count) for j in range(i + 1, count)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    return PlacementProblem(expand_instances(demands, catalog.service_types()), edges,
                            anti_affinity=draw(st.booleans()))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(), nodes=clusters(), algorithm=st.sampled_from(BASELINE_ALGORITHMS))
def test_a_placement_keeps_every_rule_or_the_failure_says_what_is_missing(problem, nodes, algorithm):
    before = copy_nodes(nodes)
    try:
        placement = ALGORITHMS[algorithm](problem, nodes)
    except PlacementError as exc:
        assert exc.instance in problem.instances
        assert exc.message.startswith(exc.instance.describe() + ": ")
        assert exc.resource in ERROR_RESOURCES
        if exc.resource == "anti_affinity":
            assert problem.anti_affinity
        return

    assert set(placement.assignments) == {inst.key for inst in problem.instances}
    by_id = {n.id: n for n in nodes}
    load = defaultdict(lambda: dict.fromkeys(RESOURCES, 0.0))
    shard_servers, dag_node_servers = defaultdict(list), defaultdict(list)
    for inst in problem.instances:
        node = by_id[placement.assignments[inst.key]]
        assert inst.allows(node), f"{inst.describe()} is pinned to {inst.platform}, placed on a {node.kind}"
        for r in RESOURCES:
            load[node.id][r] += inst.resource(r)
        shard_servers[inst.shard_key].append(node.server)
        dag_node_servers[inst.dag_node].append(node.server)
    for old, node in zip(before, nodes):
        for r in RESOURCES:
            assert node.used[r] == pytest.approx(old.used[r] + load[node.id][r])  # reserved, and only that
            assert node.used[r] <= getattr(node, r) + 1e-6, f"{node.id} over its {r}"
    for servers in shard_servers.values():
        assert len(servers) == len(set(servers)), "two replicas of a shard share a server"
    if problem.anti_affinity:
        for servers in dag_node_servers.values():
            assert len(servers) == len(set(servers)), "two shards of a DAG node share a server"


@settings(max_examples=60, deadline=None)
@given(problem=problems(), nodes=clusters())
def test_every_algorithm_succeeds_when_only_servers_could_run_short_and_there_are_enough(problem, nodes):
    """With room for everything on every node, only the fault-domain and anti-affinity rules bind; when
    the cluster has servers enough for them, a greedy choice can never get stuck, so nothing may fail
    (HCM's level search and the index must not miss a node that exists)."""
    roomy = copy_nodes(nodes)
    for node in roomy:
        node.cpu_cores, node.memory_mb, node.bandwidth_mbps = 1000.0, 1 << 20, 1 << 20
    for v in problem.dag_nodes():
        insts = [i for i in problem.instances if i.dag_node == v]
        servers = {n.server for n in roomy if insts[0].allows(n)}
        needed = len(insts) if problem.anti_affinity else max(i.replica for i in insts) + 1
        if len(servers) < needed:
            return
    for algorithm in BASELINE_ALGORITHMS:
        placement = ALGORITHMS[algorithm](problem, copy_nodes(roomy))
        assert len(placement.assignments) == len(problem.instances)
