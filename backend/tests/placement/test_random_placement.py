"""Random placement: reproducible per seed, uniform over the feasible nodes, same rules as the others."""

from collections import Counter

import pytest

from e3 import catalog
from e3.placement.instances import DagNodeDemand, expand_instances
from e3.placement.model import NodeCapacity, PlacementError, PlacementProblem
from e3.placement.random_placement import random_placement


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: placement is pure and needs no database."""


def _servers(n, nics=1, host_cores=12.0, nic_cores=12.0):
    nodes = []
    for s in range(n):
        nodes.append(NodeCapacity(f"s{s}/host", f"s{s}/host", "host", f"s{s}", f"r{s // 4}", host_cores, 65536, 20000))
        for k in range(nics):
            nodes.append(NodeCapacity(f"s{s}/nic{k}", f"s{s}/nic{k}", "smartnic", f"s{s}", f"r{s // 4}", nic_cores,
                                      4096, 20000))
    return nodes


def _problem(*nodes):
    return PlacementProblem(expand_instances([DagNodeDemand(*n) for n in nodes], catalog.service_types()), [])


def test_a_seed_reproduces_the_placement_and_another_seed_differs():
    problem = _problem(("kv", "kvs", 8, 1, "any"))
    one = random_placement(problem, _servers(8), seed=1).assignments
    assert random_placement(problem, _servers(8), seed=1).assignments == one
    assert random_placement(problem, _servers(8), seed=2).assignments != one


def test_every_feasible_node_is_about_equally_likely():
    # 6 nodes, but s0/host is full: the instance lands on the other 5, each about 1/5 of the time.
    counts = Counter()
    for seed in range(1000):
        nodes = _servers(3, host_cores=1.0)
        nodes[0].used["cpu_cores"] = 1.0
        counts.update(random_placement(_problem(("e", "ema", 1, 0, "any")), nodes, seed=seed).assignments.values())
    assert set(counts) == {"s0/nic0", "s1/host", "s1/nic0", "s2/host", "s2/nic0"}
    assert all(140 <= c <= 260 for c in counts.values()), counts


def test_the_one_feasible_node_among_many_full_ones_is_found():
    nodes = _servers(100)
    for node in nodes:
        node.used["cpu_cores"] = node.cpu_cores
    nodes[137].used["cpu_cores"] = 0.0  # s68/nic0
    placement = random_placement(_problem(("e", "ema", 1, 0, "any")), nodes, seed=3)
    assert placement.assignments == {("e", 0, 0): "s68/nic0"}


def test_rules_hold_platform_capacity_and_fault_domains():
    nodes = _servers(3, host_cores=1.0, nic_cores=1.0)
    placement = random_placement(_problem(("i", "ipsec", 2, 2, "smartnic")), nodes, seed=5)  # 0.5 core each
    for shard in range(2):
        chosen = [placement.assignments[("i", shard, r)] for r in range(3)]
        assert all(n.endswith("nic0") for n in chosen)
        assert len({n.split("/")[0] for n in chosen}) == 3
    assert all(n.used["cpu_cores"] <= n.cpu_cores for n in nodes)


def test_fixed_instances_are_kept():
    problem = _problem(("e", "ema", 3, 0, "any"))
    problem.fixed = {("e", 1, 0): "s2/nic0"}
    placement = random_placement(problem, _servers(3), seed=0)
    assert placement.assignments[("e", 1, 0)] == "s2/nic0"
    assert len(placement.assignments) == 3


def test_no_room_is_explained():
    with pytest.raises(PlacementError) as exc:
        random_placement(_problem(("kv", "kvs", 1, 2, "any")), _servers(2))
    assert exc.value.resource == "fault_domains"
    assert "kv (kvs) shard 0 backup 2" in exc.value.message
