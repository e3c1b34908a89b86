"""HCM (Algorithm 1) on small clusters, with every expected placement worked out by hand.

Catalogue facts used: api_gateway and top_ranker serve more requests per joule on the host,
kvs, ema and count on the SmartNIC; sql runs on hosts only. Reservations: api_gateway
0.5 core / 64 MB, kvs, ema and count 0.25 core, sql 0.5 core / 1024 MB, top_ranker 0.5 core.
"""

import pytest

from e3 import catalog
from e3.placement import ALGORITHMS, problem_from_document
from e3.placement.hcm import hcm, preferred_kind, replace_instances
from e3.placement.instances import DagNodeDemand, expand_instances
from e3.placement.model import NodeCapacity, PlacementError, PlacementProblem


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: placement is pure and needs no database."""


def _cluster(layout, nics=2, host_cores=4.0, nic_cores=2.0, host_mem=8192):
    """layout: (pod, rack, server) triples; each server a host `<s>/h` and SmartNICs `<s>/n0`, `<s>/n1`..."""
    nodes = []
    for pod, rack, server in layout:
        nodes.append(NodeCapacity(f"{server}/h", f"{server}/h", "host", server, rack, host_cores, host_mem, 10000,
                                  pod=pod))
        for k in range(nics):
            nodes.append(NodeCapacity(f"{server}/n{k}", f"{server}/n{k}", "smartnic", server, rack, nic_cores, 2048,
                                      10000, pod=pod))
    return nodes


def _rack(*servers):
    return [(0, "r0", s) for s in servers]


def _problem(nodes, edges=(), fixed=None):
    """nodes: (id, service, shards, replicas[, platform]) tuples."""
    demands = [DagNodeDemand(n[0], n[1], n[2], n[3], n[4] if len(n) > 4 else "any") for n in nodes]
    return PlacementProblem(expand_instances(demands, catalog.service_types()), list(edges), fixed=dict(fixed or {}))


def _node(nodes, node_id):
    return next(n for n in nodes if n.id == node_id)


def test_catalogue_preferences_the_cases_below_rely_on():
    assert [preferred_kind(s) for s in ("api_gateway", "top_ranker", "kvs", "ema", "count", "sql")] == \
        ["host", "host", "smartnic", "smartnic", "smartnic", "host"]


def test_a_child_takes_the_same_servers_efficient_kind_over_its_parents_node():
    # api: first fit on the host (its efficient kind); kv suits the SmartNIC (Table 1), and the same
    # server's SmartNIC (level 1, over PCIe) has room, so it goes there rather than on api's host.
    placement = hcm(_problem([("api", "api_gateway", 1, 0), ("kv", "kvs", 1, 0)], [("api", "kv")]),
                    _cluster(_rack("s0", "s1")))
    assert placement.assignments == {("api", 0, 0): "s0/h", ("kv", 0, 0): "s0/n0"}
    assert placement.details["placed_at_level"]["1"] == 1 and placement.details["first_fit"] == 1


def test_a_child_stays_on_its_parents_node_when_the_efficient_kind_has_no_room_on_the_server():
    nodes = _cluster(_rack("s0", "s1"), nics=1)
    for node in nodes:
        if node.id == "s0/n0":
            node.used["memory_mb"] = node.memory_mb  # the same server's SmartNIC is full
    placement = hcm(_problem([("api", "api_gateway", 1, 0), ("kv", "kvs", 1, 0)], [("api", "kv")]), nodes)
    assert placement.assignments == {("api", 0, 0): "s0/h", ("kv", 0, 0): "s0/h"}
    assert placement.details["placed_at_level"]["0"] == 1


def test_same_server_level_prefers_the_efficient_kind_then_the_tightest_fit():
    nodes = _cluster(_rack("s0", "s1"), host_cores=0.5)  # the api fills s0/h
    _node(nodes, "s0/n1").used["cpu_cores"] = 1.0
    placement = hcm(_problem([("api", "api_gateway", 1, 0), ("kv", "kvs", 1, 0)], [("api", "kv")]), nodes)
    # level 1 = s0/n0 (1.75 cores free after) and s0/n1 (0.75 after): the tighter one
    assert placement.assignments == {("api", 0, 0): "s0/h", ("kv", 0, 0): "s0/n1"}


def test_kind_preference_beats_tightness_within_a_level():
    nodes = _cluster(_rack("s0"), nic_cores=0.25)
    # kv: first fit on the first SmartNIC, which it fills. rank: level 0 full -> level 1 = s0/h (4 cores,
    # host: top_ranker's efficient kind) and s0/n1 (tighter, but a SmartNIC) -> the host.
    placement = hcm(_problem([("kv", "kvs", 1, 0), ("rank", "top_ranker", 1, 0), ("db", "sql", 1, 0)],
                             [("kv", "rank"), ("kv", "db")]), nodes)
    assert placement.assignments == {("kv", 0, 0): "s0/n0", ("rank", 0, 0): "s0/h", ("db", 0, 0): "s0/h"}


def test_runtime_statistics_break_ties():
    nodes = _cluster(_rack("s0"), host_cores=0.5)
    _node(nodes, "s0/n0").outstanding_requests = 12.0
    placement = hcm(_problem([("api", "api_gateway", 1, 0), ("kv", "kvs", 1, 0)], [("api", "kv")]), nodes)
    assert placement.assignments[("kv", 0, 0)] == "s0/n1"


def test_backups_go_to_the_nearest_other_server_smartnics_first():
    placement = hcm(_problem([("kv", "kvs", 2, 1)]), _cluster(_rack("s0", "s1", "s2"), nics=1))
    # primaries: first fit on SmartNICs, shard 1 passing over s0/n0, which holds its sibling shard 0
    # (load-aware roots); backups: levels 0-1 are the primary's server, so level 2: the rack's other
    # SmartNICs, tightest first (shard 0's, placed before shard 1: s1/n0 by topology order; shard 1's:
    # s0/n0 and s2/n0 have room, s0/n0 is tighter).
    assert placement.assignments == {("kv", 0, 0): "s0/n0", ("kv", 0, 1): "s1/n0",
                                     ("kv", 1, 0): "s1/n0", ("kv", 1, 1): "s0/n0"}
    assert placement.details["placed_at_level"] == {"0": 0, "1": 0, "2": 2, "3": 0, "4": 0, "5": 0}


def test_child_shard_k_follows_parent_shard_k_mod_n():
    problem = _problem([("src", "ema", 2, 0), ("c", "count", 4, 0)], [("src", "c")],
                       fixed={("src", 0, 0): "s0/n0", ("src", 1, 0): "s1/n0"})
    placement = hcm(problem, _cluster(_rack("s0", "s1")))
    assert placement.assignments == {("src", 0, 0): "s0/n0", ("src", 1, 0): "s1/n0",
                                     ("c", 0, 0): "s0/n0", ("c", 1, 0): "s1/n0",
                                     ("c", 2, 0): "s0/n0", ("c", 3, 0): "s1/n0"}


def test_a_sources_shards_spread_over_nodes_of_its_kind_and_their_children_follow_them():
    # load-aware roots: shard k passes over SmartNICs holding a sibling shard while another has room;
    # once every SmartNIC holds one, the least expected load (ties: topology order). Children: level 0.
    problem = _problem([("src", "ema", 4, 0), ("c", "count", 4, 0)], [("src", "c")])
    placement = hcm(problem, _cluster(_rack("s0", "s1", "s2"), nics=1))
    assert placement.assignments == {("src", 0, 0): "s0/n0", ("src", 1, 0): "s1/n0", ("src", 2, 0): "s2/n0",
                                     ("src", 3, 0): "s0/n0", ("c", 0, 0): "s0/n0", ("c", 1, 0): "s1/n0",
                                     ("c", 2, 0): "s2/n0", ("c", 3, 0): "s0/n0"}
    assert placement.details["placed_at_level"]["0"] == 4 and placement.details["first_fit"] == 4


def test_search_widens_to_the_pod_then_to_other_pods():
    layout = [(0, "r0", "s0"), (0, "r1", "s1"), (1, "r2", "s2")]
    nodes = _cluster(layout, nics=1, host_mem=1100)  # one sql (1024 MB) per host, beside the api (64 MB)
    problem = _problem([("api", "api_gateway", 1, 0), ("db", "sql", 3, 0)], [("api", "db")],
                       fixed={("api", 0, 0): "s0/h"})
    placement = hcm(problem, nodes)
    assert placement.assignments == {("api", 0, 0): "s0/h", ("db", 0, 0): "s0/h", ("db", 1, 0): "s1/h",
                                     ("db", 2, 0): "s2/h"}
    assert placement.details["placed_at_level"] == {"0": 1, "1": 0, "2": 0, "3": 0, "4": 1, "5": 1}


def test_a_child_of_two_parents_is_placed_once_beside_the_first_parent_reached():
    problem = _problem([("a", "api_gateway", 1, 0), ("b", "kvs", 1, 0), ("c", "kvs", 1, 0), ("d", "ema", 1, 0)],
                       [("a", "b"), ("a", "c"), ("c", "d"), ("b", "d")],
                       fixed={("a", 0, 0): "s0/h", ("b", 0, 0): "s1/n0", ("c", 0, 0): "s2/n0"})
    placement = hcm(problem, _cluster(_rack("s0", "s1", "s2"), nics=1))
    assert placement.assignments[("d", 0, 0)] == "s1/n0"  # b is dequeued before c


def test_a_full_cluster_names_the_instance_and_resource():
    with pytest.raises(PlacementError) as exc:
        hcm(_problem([("db", "sql", 3, 0)]), _cluster(_rack("s0"), host_mem=2048))
    assert exc.value.resource == "memory_mb"
    assert exc.value.message.startswith("db (sql) shard 2 primary: out of memory: needs 1024 MB")


def test_progress_is_reported_every_n_instances():
    seen = []
    hcm(_problem([("e", "ema", 5, 1)]), _cluster(_rack("s0", "s1")), progress=lambda d, t: seen.append((d, t)),
        progress_every=4)
    assert seen == [(4, 10), (8, 10), (10, 10)]


def test_a_template_is_placed_whole_and_deterministically():
    document = catalog.template("iot-dh")
    layout = [(s // 4 // 2, f"r{s // 4}", f"s{s}") for s in range(16)]
    first = hcm(problem_from_document(document), _cluster(layout, nics=2))
    again = hcm(problem_from_document(document), _cluster(layout, nics=2))
    assert first.assignments == again.assignments
    assert len(first.assignments) == catalog.applications()["iot-dh"].instances


def test_problem_from_document_reads_the_canonical_spec():
    problem = problem_from_document({"spec": {
        "nodes": [{"id": "gw", "service": "api_gateway", "shards": 1, "replicas": 0,
                   "constraints": {"platform": "smartnic"}, "request_bytes": 1024},
                  {"id": "db", "service": "sql", "shards": 2, "replicas": 1}],
        "edges": [{"from": "gw", "to": "db"}]}})
    assert [(i.key, i.platform, i.request_bytes) for i in problem.instances] == [
        (("gw", 0, 0), "smartnic", 1024), (("db", 0, 0), "host", 512), (("db", 0, 1), "host", 512),
        (("db", 1, 0), "host", 512), (("db", 1, 1), "host", 512)]
    assert problem.edges == [("gw", "db")] and problem.sources() == ["gw"]
    assert set(ALGORITHMS) >= {"hcm", "first_fit", "random"}


# --- re-placement ------------------------------------------------------------------------------------

def test_replacing_a_primary_moves_it_off_its_node_and_keeps_the_rest():
    nodes = _cluster(_rack("s0", "s1", "s2"), nics=1)
    problem = _problem([("kv", "kvs", 2, 1)])
    problem.fixed = hcm(problem, _cluster(_rack("s0", "s1", "s2"), nics=1)).assignments
    placement = replace_instances(problem, nodes, [("kv", 0, 0)])
    # HCM put kv0 on s0/n0 (backup s1/n0) and kv1 on s1/n0 (backup s0/n0). First fit on SmartNICs:
    # s0/n0 is the node it leaves, s1 holds its backup (and its sibling shard 1) -> s2/n0
    assert placement.assignments == {("kv", 0, 0): "s2/n0", ("kv", 0, 1): "s1/n0",
                                     ("kv", 1, 0): "s1/n0", ("kv", 1, 1): "s0/n0"}
    assert placement.details["moved"] == [{"dag_node": "kv", "shard": 0, "replica": 0, "from": "s0/n0",
                                           "to": "s2/n0"}]


def test_a_migrated_child_lands_next_to_its_parent():
    problem = _problem([("src", "ema", 1, 0), ("c", "count", 1, 0)], [("src", "c")],
                       fixed={("src", 0, 0): "s0/n0", ("c", 0, 0): "s0/n0"})
    placement = replace_instances(problem, _cluster(_rack("s0", "s1"), nics=1), [("c", 0, 0)])
    assert placement.assignments[("c", 0, 0)] == "s0/h"  # level 0 is the node it leaves: level 1


def test_failover_re_places_the_instances_of_a_node_that_is_gone():
    problem = _problem([("kv", "kvs", 2, 1)])
    problem.fixed = hcm(problem, _cluster(_rack("s0", "s1", "s2"), nics=1)).assignments
    survivors = [n for n in _cluster(_rack("s0", "s1", "s2"), nics=1) if n.id != "s0/n0"]
    # s0/n0 held shard 0's primary and shard 1's backup (see the test above)
    placement = replace_instances(problem, survivors, [("kv", 0, 0), ("kv", 1, 1)])
    assert placement.assignments == {("kv", 0, 0): "s2/n0", ("kv", 0, 1): "s1/n0",
                                     ("kv", 1, 0): "s1/n0", ("kv", 1, 1): "s2/n0"}


def test_an_instance_stays_on_the_node_it_left_when_no_other_can_take_it():
    problem = _problem([("e", "ema", 1, 0)], fixed={("e", 0, 0): "s0/h"})
    placement = replace_instances(problem, _cluster(_rack("s0"), nics=0), [("e", 0, 0)])
    assert placement.assignments == {("e", 0, 0): "s0/h"}


@pytest.mark.parametrize("algorithm", ["first_fit", "random"])
def test_replacement_with_the_baselines(algorithm):
    problem = _problem([("e", "ema", 1, 0)], fixed={("e", 0, 0): "s0/h"})
    placement = replace_instances(problem, _cluster(_rack("s0"), nics=1), [("e", 0, 0)], algorithm=algorithm)
    assert placement.assignments == {("e", 0, 0): "s0/n0"}
    assert placement.algorithm == algorithm
