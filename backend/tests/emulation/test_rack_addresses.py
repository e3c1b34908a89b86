"""The rack's address plan against a machine's routes, addresses and resolvers: pure, from what `ip -j` and
/etc/resolv.conf say (issue 19, item 12: a /16 management network captured this machine's DNS resolver)."""

import pytest

from e3.emulation.rack_addresses import AddressConflict, HostNetwork, conflicts, pick_free
from e3.emulation.rack_plan import MGMT_NETWORKS, RACK_PREFIX

# This machine as `ip -j -4 route show`, `ip -j -4 addr show` and /etc/resolv.conf describe it.
ROUTES = [{"dst": "default", "gateway": "192.0.2.1", "dev": "eth0", "flags": []},
          {"dst": "192.0.2.0/24", "dev": "eth0", "protocol": "kernel", "scope": "link", "prefsrc": "192.0.2.2"}]
LINKS = [{"ifindex": 1, "ifname": "lo", "addr_info": [{"family": "inet", "local": "127.0.0.1", "prefixlen": 8}]},
         {"ifindex": 2, "ifname": "eth0", "addr_info": [{"family": "inet", "local": "192.0.2.2", "prefixlen": 24}]}]
RESOLV_CONF = "# generated\nsearch example.org\nnameserver 10.255.255.53\nnameserver fe80::1%eth0\noptions ndots:1\n"
HOST = HostNetwork.parse(ROUTES, LINKS, RESOLV_CONF)


def test_what_ip_and_resolv_conf_say_is_read():
    assert [(r.dst, r.dev, r.gateway) for r in HOST.routes] == [("default", "eth0", "192.0.2.1"),
                                                                ("192.0.2.0/24", "eth0", None)]
    assert [(a.dev, a.local, a.prefixlen) for a in HOST.addresses] == [("lo", "127.0.0.1", 8),
                                                                       ("eth0", "192.0.2.2", 24)]
    assert HOST.resolvers == ("10.255.255.53", "fe80::1%eth0")


def test_the_default_plan_is_free_here_and_the_old_16_covered_the_resolver():
    assert pick_free("the management network", MGMT_NETWORKS, HOST) == "10.255.0.0/24"
    assert conflicts(RACK_PREFIX, HOST) == []
    assert conflicts("10.255.0.0/16", HOST) == ["DNS resolver 10.255.255.53 (/etc/resolv.conf)"]


def test_the_first_free_candidate_is_picked():
    busy = HostNetwork.parse(ROUTES + [{"dst": "10.255.0.0/20", "dev": "docker0"}],
                             LINKS + [{"ifname": "wg0", "addr_info": [{"local": "10.254.0.7", "prefixlen": 32}]}],
                             RESOLV_CONF)
    assert pick_free("the management network", MGMT_NETWORKS, busy) == "10.253.0.0/24"


def test_a_conflict_names_the_range_and_the_route_address_resolver_or_gateway_in_its_way():
    host = HostNetwork.parse(
        [{"dst": "default", "gateway": "10.9.0.1", "dev": "eth1"}, {"dst": "10.8.0.0/16", "dev": "tun0"},
         {"dst": "10.7.1.5", "dev": "eth2", "gateway": "10.7.1.1"}],
        [{"ifname": "eth3", "addr_info": [{"local": "10.6.3.3", "prefixlen": 24}]}],
        "nameserver 10.5.0.53\n")
    candidates = ("10.9.0.0/24", "10.8.4.0/24", "10.7.0.0/16", "10.6.3.0/24", "10.5.0.0/24")
    with pytest.raises(AddressConflict) as refused:
        pick_free("the rack's management network", candidates, host)
    assert str(refused.value) == (
        "no free range for the rack's management network on this machine: "
        "10.9.0.0/24 would cover the default route's gateway 10.9.0.1 (dev eth1); "
        "10.8.4.0/24 would cover route 10.8.0.0/16 dev tun0; "
        "10.7.0.0/16 would cover route 10.7.1.5 dev eth2 via 10.7.1.1; "
        "10.6.3.0/24 would cover address 10.6.3.3/24 on eth3; "
        "10.5.0.0/24 would cover DNS resolver 10.5.0.53 (/etc/resolv.conf)")


def test_the_racks_own_bridge_is_not_in_its_way():
    up = HostNetwork.parse(ROUTES + [{"dst": "10.255.0.0/24", "dev": "e3mgmt", "prefsrc": "10.255.0.1"}],
                           LINKS + [{"ifname": "e3mgmt", "addr_info": [{"local": "10.255.0.1", "prefixlen": 24}]}],
                           RESOLV_CONF)
    assert conflicts("10.255.0.0/24", up, own_devs=["e3mgmt"]) == []
    assert conflicts("10.255.0.0/24", up) == ["route 10.255.0.0/24 dev e3mgmt", "address 10.255.0.1/24 on e3mgmt"]
