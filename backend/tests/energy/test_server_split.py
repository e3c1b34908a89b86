"""An IPMI server reading split into host and SmartNIC nodes (e3.energy.server_split)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from e3 import catalog
from e3.energy.server_split import SmartNicLoad, split_server


def nic_active(service: str) -> float:
    return catalog.service_types()[service].calibration["smartnic"].active_watts


def test_smartnics_get_their_model_and_the_host_the_rest():
    split = split_server(300.0, "s1/host", [SmartNicLoad("s1/nic0", frozenset({"nids", "count"})),
                                            SmartNicLoad("s1/nic1")])
    host, busy, empty = split.nodes
    assert split.source == "ipmi" and not split.clamped
    assert {n.source for n in split.nodes} == {"ipmi-split"}
    # Table 4: a Type 1 SmartNIC server idles at 98 W, a beefy one at 83 W -> 15 W per LiquidIO.
    assert empty.watts == 15.0 and empty.kind == "smartnic"
    assert busy.watts == pytest.approx(15.0 + max(nic_active("nids"), nic_active("count")))
    assert host.kind == "host" and host.node_id == "s1/host"
    assert host.watts == pytest.approx(300.0 - busy.watts - empty.watts)


def test_a_reading_below_the_smartnics_model_gives_the_host_zero_and_scales_the_nics():
    split = split_server(20.0, "h", [SmartNicLoad("a", frozenset({"nids"})), SmartNicLoad("b")])
    host, a, b = split.nodes
    assert split.clamped
    assert host.watts == 0.0
    assert a.watts + b.watts == pytest.approx(20.0)
    assert a.watts / b.watts == pytest.approx(a.modelled_watts / b.modelled_watts)


def test_a_server_without_smartnics_is_all_host():
    split = split_server(201.0, "h", [])
    assert [(n.node_id, n.watts) for n in split.nodes] == [("h", 201.0)]


def test_a_negative_reading_is_refused():
    with pytest.raises(ValueError, match="server_watts"):
        split_server(-1.0, "h", [])


services = st.sampled_from(sorted(s for s, t in catalog.service_types().items() if "smartnic" in t.calibration))


@settings(max_examples=200, deadline=None)
@given(watts=st.floats(0, 2000), nics=st.lists(st.frozensets(services, max_size=4), max_size=4))
def test_the_parts_add_up_to_the_reading(watts, nics):
    split = split_server(watts, "h", [SmartNicLoad(f"n{i}", s) for i, s in enumerate(nics)])
    assert math.isclose(sum(n.watts for n in split.nodes), watts, rel_tol=1e-9, abs_tol=1e-12)
    assert all(n.watts >= 0 for n in split.nodes)


def test_the_worked_example_of_docs_energy_md():
    from e3.energy.attribution import InstanceUsage, NodeInterval, attribute

    host, nic = split_server(180.0, "s1/host", [SmartNicLoad("s1/nic0", frozenset({"nids"}))]).nodes
    assert nic.watts == pytest.approx(38.4) and host.watts == pytest.approx(141.6)
    types = catalog.server_types()
    host_idle = types["type1-smartnic"].idle_watts - 15.0
    node = attribute(NodeInterval.from_watts("s1/host", host.watts, 10.0, host_idle, host.source, [
        InstanceUsage("a", 0.3, requests=3000, reserved_cores=1.0),
        InstanceUsage("b", 0.1, requests=1000, reserved_cores=0.5)], cpu_utilization=0.5))
    a, b = node.instances
    assert (a.joules, b.joules, node.unattributed_joules) == pytest.approx((904.933, 393.867, 117.2), abs=1e-3)
    assert a.source == "ipmi-split"
