"""Attribution of a node's energy to its instances: the rule of e3.energy.attribution, and conservation."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from e3.energy.attribution import (EnergyTotal, InstanceRef, InstanceUsage, NodeInterval, attribute, by_application,
                                   by_dag_node, by_instance, cluster_total)


def parts_total(node) -> float:
    return sum(i.joules for i in node.instances) + node.unattributed_joules


def test_idle_by_reserved_cores_and_dynamic_by_cpu_time():
    # 10 s at 150 W on a node idling at 100 W: 1000 J idle, 500 J dynamic.
    node = attribute(NodeInterval.from_watts("n1", 150.0, 10.0, 100.0, "rapl", [
        InstanceUsage("a", cpu_share=0.3, requests=30, reserved_cores=1.0),
        InstanceUsage("b", cpu_share=0.1, requests=10, reserved_cores=3.0),
    ]))
    a, b = node.instances
    assert (node.idle_joules, node.dynamic_joules) == (1000.0, 500.0)
    assert a.idle_joules == pytest.approx(250.0) and b.idle_joules == pytest.approx(750.0)
    assert a.dynamic_joules == pytest.approx(375.0) and b.dynamic_joules == pytest.approx(125.0)
    assert node.unattributed_joules == pytest.approx(0.0)
    assert (a.requests, a.source) == (30, "rapl")


def test_unknown_reservation_falls_back_to_equal_idle_shares():
    node = attribute(NodeInterval("n1", 300.0, 1.0, 90.0, "model", (
        InstanceUsage("a", 0.5, reserved_cores=2.0), InstanceUsage("b", 0.5), InstanceUsage("c", 0.0))))
    assert [i.idle_joules for i in node.instances] == pytest.approx([30.0, 30.0, 30.0])


def test_node_without_instances_keeps_everything_unattributed():
    node = attribute(NodeInterval.from_watts("n1", 120.0, 2.0, 100.0, "ipmi-split"))
    assert node.instances == ()
    assert node.unattributed_joules == 240.0
    assert (node.idle_joules, node.dynamic_joules) == (200.0, 40.0)


def test_the_nodes_own_cpu_keeps_its_part_of_dynamic():
    # The node was 80% busy, its instances 40%: half of dynamic is the node's own (agent, kernel).
    node = attribute(NodeInterval("n1", 200.0, 1.0, 100.0, "rapl", (InstanceUsage("a", 0.4, reserved_cores=1),),
                                  cpu_utilization=0.8))
    (a,) = node.instances
    assert a.dynamic_joules == pytest.approx(50.0)
    assert a.idle_joules == pytest.approx(100.0)
    assert node.unattributed_joules == pytest.approx(50.0)


def test_a_reading_below_idle_is_all_idle_and_flagged():
    node = attribute(NodeInterval.from_watts("n1", 60.0, 1.0, 100.0, "ipmi-split",
                                             [InstanceUsage("a", 0.9, reserved_cores=1)]))
    assert node.below_idle
    assert (node.idle_joules, node.dynamic_joules) == (60.0, 0.0)
    assert node.instances[0].joules == 60.0 and node.instances[0].dynamic_joules == 0.0


def test_idle_instances_get_no_dynamic_and_it_stays_with_the_node():
    node = attribute(NodeInterval("n1", 150.0, 1.0, 100.0, "model", (InstanceUsage("a", 0.0, reserved_cores=1),)))
    assert node.instances[0].dynamic_joules == 0.0
    assert node.unattributed_joules == 50.0


@pytest.mark.parametrize("field, kwargs", [
    ("seconds", dict(seconds=0.0)), ("joules", dict(joules=-1.0)), ("idle_watts", dict(idle_watts=math.nan)),
    ("cpu_share", dict(instances=(InstanceUsage("a", 1.5),))),
    ("reserved_cores", dict(instances=(InstanceUsage("a", 0.5, reserved_cores=-1),))),
])
def test_bad_input_names_the_field(field, kwargs):
    base = dict(node_id="n1", joules=10.0, seconds=1.0, idle_watts=5.0, source="model", instances=())
    with pytest.raises(ValueError, match=field):
        attribute(NodeInterval(**{**base, **kwargs}))


usages = st.lists(st.builds(
    InstanceUsage, instance_id=st.uuids().map(str), cpu_share=st.floats(0, 1), requests=st.integers(0, 10**9),
    reserved_cores=st.one_of(st.none(), st.floats(0, 64))), max_size=64)


@settings(max_examples=300, deadline=None)
@given(watts=st.floats(0, 5000), seconds=st.floats(1e-3, 3600), idle=st.floats(0, 1000), instances=usages,
       util=st.one_of(st.none(), st.floats(0, 1)))
def test_energy_is_conserved(watts, seconds, idle, instances, util):
    node = attribute(NodeInterval.from_watts("n", watts, seconds, idle, "rapl", instances, util))
    assert math.isclose(parts_total(node), node.joules, rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(node.idle_joules + node.dynamic_joules, node.joules, rel_tol=1e-9, abs_tol=1e-12)
    assert node.unattributed_joules >= 0
    assert all(i.idle_joules >= 0 and i.dynamic_joules >= 0 for i in node.instances)


def _cluster():
    nodes = [
        attribute(NodeInterval("host", 200.0, 1.0, 100.0, "rapl", (
            InstanceUsage("fw-1", 0.2, requests=1000, reserved_cores=1), InstanceUsage("db-1", 0.6, requests=1000,
                                                                                        reserved_cores=1)))),
        attribute(NodeInterval("nic", 40.0, 1.0, 15.0, "ipmi-split", (
            InstanceUsage("fw-2", 0.5, requests=500, reserved_cores=1),))),
        attribute(NodeInterval("idle-host", 83.0, 1.0, 83.0, "model")),
    ]
    refs = {"fw-1": InstanceRef("shop", "firewall", True), "fw-2": InstanceRef("shop", "firewall", True),
            "db-1": InstanceRef("shop", "db", False)}
    return nodes, refs


def test_rollups_sum_instances_and_count_an_applications_requests_at_its_entry():
    nodes, refs = _cluster()
    per_instance = by_instance(nodes)
    assert per_instance["fw-2"] == EnergyTotal(40.0, 500, frozenset({"ipmi-split"}))
    dag = by_dag_node(nodes, refs)
    assert dag[("shop", "firewall")].joules == pytest.approx(per_instance["fw-1"].joules + 40.0)
    assert dag[("shop", "firewall")].requests == 1500
    assert dag[("shop", "firewall")].sources == {"rapl", "ipmi-split"}
    app = by_application(nodes, refs)["shop"]
    assert app.joules == pytest.approx(200.0 + 40.0)  # everything on host and nic went to shop's instances
    assert app.requests == 1500  # db's requests are the same requests, one hop further
    total = cluster_total(nodes, refs)
    assert total.joules == pytest.approx(323.0)  # the idle host counts for the cluster, not for shop
    assert total.requests == 1500
    assert total.sources == {"rapl", "ipmi-split", "model"}
