"""First-fit, pure: capacities, platform pinning, fault domains, and the error when nothing fits."""

import pytest

from e3 import catalog
from e3.placement.first_fit import first_fit
from e3.placement.instances import DagNodeDemand, expand_instances
from e3.placement.model import NodeCapacity, PlacementError, PlacementProblem


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: placement is pure and needs no database."""


def _servers(n, host_cores=12.0, nic_cores=12.0, host_mem=65536, nic_mem=4096):
    nodes = []
    for s in range(n):
        nodes.append(NodeCapacity(f"s{s}/host", f"s{s}/host", "host", f"s{s}", "r0", host_cores, host_mem, 20000))
        nodes.append(NodeCapacity(f"s{s}/nic0", f"s{s}/nic0", "smartnic", f"s{s}", "r0", nic_cores, nic_mem, 20000))
    return nodes


def _instances(*nodes):
    return PlacementProblem(expand_instances([DagNodeDemand(*n) for n in nodes], catalog.service_types()), [])


def test_expansion_orders_primary_then_backups_and_pins_sql_to_hosts():
    inst = _instances(("db", "sql", 2, 1, "any")).instances
    assert [(i.shard, i.replica, i.role) for i in inst] == [(0, 0, "primary"), (0, 1, "backup"),
                                                            (1, 0, "primary"), (1, 1, "backup")]
    assert {i.platform for i in inst} == {"host"}


def test_replicas_of_a_shard_land_on_distinct_servers():
    placement = first_fit(_instances(("kv", "kvs", 4, 2, "any")), _servers(3))
    for shard in range(4):
        servers = {placement.assignments[("kv", shard, r)].split("/")[0] for r in range(3)}
        assert len(servers) == 3


def test_capacity_is_never_exceeded_and_existing_load_counts():
    nodes = _servers(2, host_cores=1.0, nic_cores=1.0)
    nodes[0].used["cpu_cores"] = 1.0  # s0/host is full already
    placement = first_fit(_instances(("e", "ema", 4, 0, "any")), nodes)  # 0.25 core each
    assert set(placement.assignments.values()) == {"s0/nic0"}
    for node in nodes:
        assert node.used["cpu_cores"] <= node.cpu_cores + 1e-9


def test_platform_constraint_is_honoured():
    placement = first_fit(_instances(("i", "ipsec", 3, 0, "smartnic")), _servers(2))
    assert all(node.endswith("nic0") for node in placement.assignments.values())


def test_not_enough_servers_for_replicas_is_explained():
    with pytest.raises(PlacementError) as exc:
        first_fit(_instances(("kv", "kvs", 1, 2, "any")), _servers(2))
    assert exc.value.resource == "fault_domains"
    assert "kv (kvs) shard 0 backup 2" in exc.value.message


def test_running_out_of_memory_names_the_resource_and_microservice():
    with pytest.raises(PlacementError) as exc:
        first_fit(_instances(("db", "sql", 3, 0, "any")), _servers(1, host_mem=2048))
    assert exc.value.resource == "memory_mb"
    assert exc.value.message.startswith("db (sql) shard 2 primary: out of memory: needs 1024 MB")


def test_no_node_of_the_platform():
    nodes = [n for n in _servers(2) if n.kind == "host"]
    with pytest.raises(PlacementError) as exc:
        first_fit(_instances(("i", "ipsec", 1, 0, "smartnic")), nodes)
    assert "the cluster has no smartnic node that is up" in exc.value.message


def test_progress_is_reported():
    seen = []
    first_fit(_instances(("e", "ema", 10, 0, "any")), _servers(2), progress=lambda d, t: seen.append((d, t)),
              progress_every=4)
    assert seen == [(4, 10), (8, 10), (10, 10)]


def test_fixed_instances_stay_put_and_count_against_capacity():
    nodes = _servers(2, host_cores=1.0, nic_cores=1.0)
    problem = _instances(("e", "ema", 6, 0, "any"))  # 0.25 core each
    problem.fixed = {("e", 0, 0): "s1/nic0", ("e", 1, 0): "s1/nic0"}
    placement = first_fit(problem, nodes)
    assert placement.assignments == {("e", 0, 0): "s1/nic0", ("e", 1, 0): "s1/nic0",
                                     ("e", 2, 0): "s0/host", ("e", 3, 0): "s0/host",
                                     ("e", 4, 0): "s0/host", ("e", 5, 0): "s0/host"}
    assert nodes[3].used["cpu_cores"] == 0.5  # s1/nic0: the two fixed instances


def test_anti_affinity_spreads_shards_over_servers_and_fails_when_it_cannot():
    problem = _instances(("e", "ema", 3, 0, "any"))
    problem.anti_affinity = True
    placement = first_fit(problem, _servers(3))
    assert [placement.assignments[("e", s, 0)] for s in range(3)] == ["s0/host", "s1/host", "s2/host"]
    problem.anti_affinity = True
    with pytest.raises(PlacementError) as exc:
        first_fit(problem, _servers(2))
    assert exc.value.resource == "anti_affinity"
    assert exc.value.message.startswith("e (ema) shard 2 primary: anti-affinity puts the shards of e on distinct")


def test_placement_follows_the_order_of_the_nodes_given():
    nodes = list(reversed(_servers(2)))  # s1/nic0, s1/host, s0/nic0, s0/host
    placement = first_fit(_instances(("e", "ema", 1, 1, "any")), nodes)
    assert placement.assignments == {("e", 0, 0): "s1/nic0", ("e", 0, 1): "s0/nic0"}


def test_avoided_node_is_skipped_unless_nothing_else_fits():
    placement = first_fit(_instances(("e", "ema", 1, 0, "any")), _servers(2), avoid={("e", 0, 0): "s0/host"})
    assert placement.assignments == {("e", 0, 0): "s0/nic0"}
    nodes = [n for n in _servers(1) if n.kind == "host"]
    placement = first_fit(_instances(("e", "ema", 1, 0, "any")), nodes, avoid={("e", 0, 0): "s0/host"})
    assert placement.assignments == {("e", 0, 0): "s0/host"}
