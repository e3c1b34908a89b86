"""The rack addressing plan: pure, no kernel involved."""

import re

import pytest

from e3.emulation.rack_plan import IFNAME_MAX, PORTS_PER_NIC, RackPlan, plan_rack

MAC_RE = re.compile(r"^02:e3:0[12](:[0-9a-f]{2}){3}$")


def _ifnames_by_namespace(plan: RackPlan) -> dict[str, list[str]]:
    names: dict[str, list[str]] = {"root": [plan.uplink.root_ifname, plan.mgmt_bridge], plan.tor_ns: [plan.uplink.tor_ifname]}
    for s in plan.servers:
        names["root"].append(s.mgmt_root_ifname)
        names[plan.tor_ns] += [p.tor_ifname for p in s.ports]
        names[s.ns] = [s.mgmt_ifname] + [p.server_ifname for p in s.ports]
    return names


def test_type1_one_nic_with_two_ports():
    plan = plan_rack("lab", 3, "type1-smartnic")
    assert plan.tor_ns == "e3-lab-tor"
    assert plan.namespaces() == ["e3-lab-tor", "e3-lab-s1", "e3-lab-s2", "e3-lab-s3"]
    s2 = plan.servers[1]
    assert (s2.name, s2.index, s2.ns, s2.node, s2.host_ip, s2.mgmt_ip) == (
        "s2", 2, "e3-lab-s2", "s2/host", "10.3.2.1", "10.255.0.102")
    assert [n.ip for n in s2.nics] == ["10.3.2.10"]
    nic = s2.nics[0]
    assert (nic.name, nic.node, nic.ports) == ("nic0", "s2/nic0", [0, 1])
    assert nic.file_prefix == "e3-lab-s2-nic0"
    assert nic.memif_socket == "/run/e3/lab/s2-nic0.sock"
    assert [(p.index, p.nic_index, p.server_ifname, p.tor_ifname) for p in s2.ports] == [
        (0, 0, "p0", "t2p0"), (1, 0, "p1", "t2p1")]
    assert (s2.ports[1].tor_mac, s2.ports[1].server_mac) == ("02:e3:01:02:01:00", "02:e3:02:02:01:00")


def test_type2_four_nics_with_one_port_each():
    plan = plan_rack("lab", 2, "type2-smartnic")
    s1 = plan.servers[0]
    assert [n.ip for n in s1.nics] == ["10.3.1.10", "10.3.1.11", "10.3.1.12", "10.3.1.13"]
    assert [n.ports for n in s1.nics] == [[0], [1], [2], [3]]
    assert [n.node for n in s1.nics] == ["s1/nic0", "s1/nic1", "s1/nic2", "s1/nic3"]
    assert [p.tor_ifname for p in s1.ports] == ["t1p0", "t1p1", "t1p2", "t1p3"]
    assert [p.nic_index for p in s1.ports] == [0, 1, 2, 3]
    assert len(plan.nics()) == 8
    assert PORTS_PER_NIC == {"type1-smartnic": 2, "type2-smartnic": 1}


def test_uplink_and_management_network():
    plan = plan_rack("lab", 2, "type2-smartnic")
    up = plan.uplink
    assert (up.root_ip, up.tor_ip, up.prefixlen, up.rack_prefix, up.tor_ifname) == (
        "10.3.0.1", "10.3.0.2", 30, "10.3.0.0/16", "up")
    assert re.fullmatch(r"e3u[0-9a-f]{8}", up.root_ifname)
    # a /24 by default: the /16 it was covered this machine's DNS resolver, 10.255.255.53 (issue 19, item 12)
    assert (plan.mgmt_bridge, plan.mgmt_gateway, plan.mgmt_prefixlen, plan.mgmt_network) == (
        "e3mgmt", "10.255.0.1", 24, "10.255.0.0/24")
    assert [s.mgmt_ip for s in plan.servers] == ["10.255.0.101", "10.255.0.102"]
    assert plan_rack("other", 2, "type2-smartnic").uplink.root_ifname != up.root_ifname


def test_the_management_network_is_the_one_given():
    plan = plan_rack("lab", 50, "type1-smartnic", "10.254.0.0/24")
    assert (plan.mgmt_gateway, plan.mgmt_prefixlen, plan.mgmt_network) == ("10.254.0.1", 24, "10.254.0.0/24")
    assert (plan.servers[0].mgmt_ip, plan.servers[-1].mgmt_ip) == ("10.254.0.101", "10.254.0.150")
    assert RackPlan.from_json(plan.to_json()).mgmt_network == "10.254.0.0/24"
    with pytest.raises(ValueError, match="mgmt_network: 10.254.0.0/25 is too small"):
        plan_rack("lab", 1, "type1-smartnic", "10.254.0.0/25")


@pytest.mark.parametrize("server_type", ["type1-smartnic", "type2-smartnic"])
def test_interface_names_fit_and_are_unique_per_namespace(server_type):
    plan = plan_rack("a-sixteen-chars1", 50, server_type)
    for ns, names in _ifnames_by_namespace(plan).items():
        assert all(len(n) <= IFNAME_MAX for n in names), (ns, [n for n in names if len(n) > IFNAME_MAX])
        assert len(set(names)) == len(names), ns


@pytest.mark.parametrize("server_type", ["type1-smartnic", "type2-smartnic"])
def test_macs_are_well_formed_and_unique(server_type):
    plan = plan_rack("lab", 50, server_type)
    macs = [m for s in plan.servers for p in s.ports for m in (p.tor_mac, p.server_mac)]
    assert all(MAC_RE.match(m) for m in macs)
    assert len(set(macs)) == len(macs)
    assert plan.servers[49].ports[0].tor_mac == "02:e3:01:32:00:00"  # server 50 = 0x32


def test_plan_round_trips_through_json():
    plan = plan_rack("lab", 3, "type1-smartnic")
    assert RackPlan.from_json(plan.to_json()) == plan


@pytest.mark.parametrize("cluster", ["", "Lab", "1lab", "lab_1", "a-name-of-17chars", "la b", None])
def test_bad_cluster_names_are_refused(cluster):
    with pytest.raises(ValueError, match="cluster"):
        plan_rack(cluster, 2, "type1-smartnic")


@pytest.mark.parametrize("servers", [0, 51, -1, True, 2.0])
def test_bad_server_counts_are_refused(servers):
    with pytest.raises(ValueError, match="servers"):
        plan_rack("lab", servers, "type1-smartnic")


@pytest.mark.parametrize("server_type", ["beefy", "type3-smartnic"])
def test_non_smartnic_types_are_refused(server_type):
    with pytest.raises(ValueError, match="server_type"):
        plan_rack("lab", 2, server_type)
