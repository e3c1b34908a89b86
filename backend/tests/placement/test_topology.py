"""The topology's levels around a node, its free-capacity summaries, and that the index follows reservations."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from e3.placement.model import (LEVEL_POD, LEVEL_RACK_HOST, LEVEL_RACK_SMARTNIC, LEVEL_REMOTE, LEVEL_SAME_NODE,
                                LEVEL_SAME_SERVER, LEVELS, InstanceRequest, NodeCapacity, level_between)
from e3.placement.topology import Topology


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: placement is pure and needs no database."""


# pod 0: rack r0 = servers a, b; rack r1 = server c; rack r2 = server e.  pod 1: rack r3 = server d.
LAYOUT = [(0, "r0", "a"), (0, "r0", "b"), (0, "r1", "c"), (0, "r2", "e"), (1, "r3", "d")]


def _cluster(layout=LAYOUT, nics=2, host_cores=4.0, nic_cores=2.0):
    nodes = []
    for pod, rack, server in layout:
        nodes.append(NodeCapacity(f"{server}/h", f"{server}/h", "host", server, rack, host_cores, 8192, 10000, pod=pod))
        for k in range(nics):
            nodes.append(NodeCapacity(f"{server}/n{k}", f"{server}/n{k}", "smartnic", server, rack, nic_cores, 2048,
                                      10000, pod=pod))
    return nodes


def _ema(platform="any", cores=0.25, memory=16):
    return InstanceRequest("e", "ema", 0, 0, platform, cores, memory, 100)


def _ids(levels):
    return {level: [n.id for n in candidates] for level, candidates in levels}


def test_levels_of_a_smartnic_list_every_node_once_nearest_first():
    topo = Topology(_cluster())
    assert _ids(topo.levels(topo.node("a/n0"))) == {
        LEVEL_SAME_NODE: ["a/n0"],
        LEVEL_SAME_SERVER: ["a/h", "a/n1"],
        LEVEL_RACK_SMARTNIC: ["b/n0", "b/n1"],
        LEVEL_RACK_HOST: ["b/h"],
        LEVEL_POD: ["c/h", "c/n0", "c/n1", "e/h", "e/n0", "e/n1"],
        LEVEL_REMOTE: ["d/h", "d/n0", "d/n1"],
    }


def test_levels_of_a_host_in_the_other_pod():
    topo = Topology(_cluster())
    assert _ids(topo.levels(topo.node("d/h"))) == {
        LEVEL_SAME_NODE: ["d/h"],
        LEVEL_SAME_SERVER: ["d/n0", "d/n1"],
        LEVEL_RACK_SMARTNIC: [],
        LEVEL_RACK_HOST: [],
        LEVEL_POD: [],
        LEVEL_REMOTE: ["a/h", "a/n0", "a/n1", "b/h", "b/n0", "b/n1", "c/h", "c/n0", "c/n1", "e/h", "e/n0", "e/n1"],
    }


def test_levels_agree_with_level_between():
    topo = Topology(_cluster())
    for node in topo.nodes:
        for level, candidates in topo.levels(node):
            assert all(level_between(node, other) == level for other in candidates)


def test_with_a_demand_only_nodes_that_can_host_it_are_listed():
    nodes = _cluster()
    next(n for n in nodes if n.id == "a/n1").used["cpu_cores"] = 2.0  # full before the topology is built
    topo = Topology(nodes)
    levels = _ids(topo.levels(topo.node("a/n0"), _ema()))
    assert levels[LEVEL_SAME_NODE] == ["a/n0"]
    assert levels[LEVEL_SAME_SERVER] == ["a/h"]
    # smartnic-only: hosts drop out of every level
    levels = _ids(topo.levels(topo.node("a/n0"), _ema("smartnic")))
    assert levels[LEVEL_SAME_SERVER] == [] and levels[LEVEL_RACK_HOST] == []
    assert levels[LEVEL_RACK_SMARTNIC] == ["b/n0", "b/n1"]


def test_blocked_servers_and_the_avoided_node_are_left_out():
    topo = Topology(_cluster())
    levels = _ids(topo.levels(topo.node("a/n0"), _ema(), blocked={"a"}, avoid="b/n0"))
    assert levels[LEVEL_SAME_NODE] == [] and levels[LEVEL_SAME_SERVER] == []
    assert levels[LEVEL_RACK_SMARTNIC] == ["b/n1"]
    assert levels[LEVEL_RACK_HOST] == ["b/h"]


def test_pod_and_remote_levels_offer_the_first_rack_with_room_per_kind():
    topo = Topology(_cluster())
    big = _ema(cores=2.0)
    levels = _ids(topo.levels(topo.node("a/n0"), big))
    assert levels[LEVEL_POD] == ["c/h", "c/n0", "c/n1"]  # rack r1, for both kinds
    assert levels[LEVEL_REMOTE] == ["d/h", "d/n0", "d/n1"]
    for node_id in ("c/n0", "c/n1"):
        topo.reserve(topo.node(node_id), big)
    levels = _ids(topo.levels(topo.node("a/n0"), big))
    assert levels[LEVEL_POD] == ["c/h", "e/n0", "e/n1"]  # r1's smartnics are full: r2's are next


def test_free_capacity_follows_reservations_and_releases():
    topo = Topology(_cluster())
    inst = _ema(cores=1.5, memory=2000)
    for node_id in ("a/n0", "a/n1", "b/n0"):
        topo.reserve(topo.node(node_id), inst)
    assert topo.first_fit(inst, kinds=["smartnic"]).id == "b/n1"  # r0's last empty SmartNIC
    topo.reserve(topo.node("b/n1"), inst)
    assert topo.first_fit(inst, kinds=["smartnic"]).id == "c/n0"  # r0 is full: the next rack
    topo.release(topo.node("a/n1"), inst)
    assert topo.first_fit(inst, kinds=["smartnic"]).id == "a/n1"
    assert topo.first_fit(inst, kinds=["gpu"]) is None


def test_first_fit_is_in_topology_order_and_groups_servers_racks_and_pods():
    nodes = _cluster([(1, "r3", "d"), (0, "r0", "a"), (1, "r3", "f"), (0, "r0", "b")], nics=1)
    interleaved = [nodes[i] for i in (0, 2, 1, 3, 4, 6, 5, 7)]  # d/h a/h d/n0 a/n0 f/h b/h f/n0 b/n0
    topo = Topology(interleaved)
    assert [n.id for n in topo.nodes] == ["d/h", "d/n0", "f/h", "f/n0", "a/h", "a/n0", "b/h", "b/n0"]
    assert topo.first_fit(_ema()).id == "d/h"
    assert topo.first_fit(_ema(), blocked={"d", "f"}).id == "a/h"
    assert topo.first_fit(_ema(), kinds=["smartnic", "host"]).id == "d/n0"


def test_inconsistent_clusters_are_refused():
    nodes = _cluster([(0, "r0", "a")], nics=1)
    with pytest.raises(ValueError, match="appears twice"):
        Topology(nodes + nodes[:1])
    stray = NodeCapacity("a/x", "a/x", "smartnic", "a", "r9", 1.0, 1, 1)
    with pytest.raises(ValueError, match="server 'a' has nodes in racks"):
        Topology(nodes + [stray])


# --- the index against brute force -----------------------------------------------------------------

@st.composite
def _loaded_cluster(draw):
    layout = []
    for pod in range(draw(st.integers(1, 3))):
        for rack in range(draw(st.integers(1, 3))):
            for server in range(draw(st.integers(1, 3))):
                layout.append((pod, f"p{pod}r{rack}", f"p{pod}r{rack}s{server}"))
    nodes = _cluster(layout, nics=draw(st.integers(0, 2)))
    for node in nodes:
        node.used["cpu_cores"] = draw(st.sampled_from([0.0, 0.5, 1.0, node.cpu_cores]))
    return nodes


@settings(max_examples=60, deadline=None)
@given(_loaded_cluster(), st.data())
def test_levels_with_a_demand_match_a_brute_force_filter(nodes, data):
    topo = Topology(nodes)
    for node_id in data.draw(st.lists(st.sampled_from([n.id for n in nodes]), max_size=4)):
        topo.reserve(topo.node(node_id), _ema(cores=0.5))  # through the index, after it was built
    anchor = data.draw(st.sampled_from(topo.nodes))
    inst = _ema(data.draw(st.sampled_from(["any", "host", "smartnic"])), cores=data.draw(st.sampled_from([0.5, 1.5])))
    blocked = set(data.draw(st.lists(st.sampled_from([n.server for n in nodes]), max_size=2)))
    fits = [n for n in topo.nodes if inst.allows(n) and n.fits(inst) and n.server not in blocked]
    got = dict(topo.levels(anchor, inst, blocked=blocked))
    assert list(got) == list(LEVELS)
    for level in (LEVEL_SAME_NODE, LEVEL_SAME_SERVER, LEVEL_RACK_SMARTNIC, LEVEL_RACK_HOST):
        assert sorted(n.id for n in got[level]) == sorted(n.id for n in fits if level_between(anchor, n) == level)
    for level in (LEVEL_POD, LEVEL_REMOTE):
        expected = []
        for kind in topo.allowed_kinds(inst):
            at_level = [n for n in fits if n.kind == kind and level_between(anchor, n) == level]
            expected += [n.id for n in at_level if at_level and n.rack == at_level[0].rack]
        assert [n.id for n in got[level]] == expected
    first = next((n for n in topo.nodes if n in fits), None)
    assert topo.first_fit(inst, blocked) is first
