"""The rack's network on the real kernel: namespaces, veths, routes, ECMP, and a clean teardown.

Needs root and network namespaces; skipped with the reason otherwise. Uses a unique cluster name and
always tears the rack down, even when a test fails.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from e3.emulation import netns, rack_network
from e3.emulation.rack_plan import DPDK_RUNTIME_ROOT, MGMT_BRIDGE, RACK_PREFIX, RackPlan, plan_rack

UNSUPPORTED = netns.netns_supported()
pytestmark = pytest.mark.skipif(UNSUPPORTED is not None, reason=f"needs root and network namespaces: {UNSUPPORTED}")

DATAGRAMS = 1000  # enough that a fair hash keeps every port within 40% of its share (200 once gave 74 of 50)
BACKEND = Path(__file__).resolve().parents[2]


@pytest.fixture
def rack(tmp_path):
    """A 2-server type2 plan and a state path; whatever gets built is destroyed afterwards."""
    if netns.routes(RACK_PREFIX):
        pytest.skip(f"{RACK_PREFIX} is already routed here: another rack is up")
    plan = plan_rack(f"t{uuid.uuid4().hex[:8]}", 2, "type2-smartnic", rack_network.mgmt_network())
    state = tmp_path / "rack.json"
    bridge_existed = netns.link_exists(MGMT_BRIDGE)
    try:
        yield plan, state, bridge_existed
    finally:
        rack_network.destroy(plan, state_path=state)


def _tor_routes(plan: RackPlan) -> dict[str, dict]:
    return {r["dst"]: r for r in netns.ip_json("-4", "route", "show", ns=plan.tor_ns)}


def _tx_packets(ns: str, ifnames: list[str]) -> dict[str, int]:
    links = {link["ifname"]: link for link in netns.ip_json("-s", "link", "show", ns=ns)}
    return {name: links[name]["stats64"]["tx"]["packets"] for name in ifnames}


def _stand_in_for_nics(ns: str, host_ip: str, ports: list[str]) -> None:
    """Let server ns answer ARP for the host IP on every port (kernel stand-in for the DPDK NICs)."""
    netns.ip("addr", "add", f"{host_ip}/32", "dev", "lo", ns=ns)
    netns.sysctl({"net.ipv4.conf.all.arp_ignore": 0, "net.ipv4.conf.all.rp_filter": 0,
                  **{f"net.ipv4.conf.{p}.rp_filter": 0 for p in ports}}, ns=ns)
    netns.ip("route", "add", "10.3.0.0/30", "dev", ports[0], ns=ns)


def _send_udp_from_many_ports(dst: str, count: int) -> None:
    """`count` datagrams from the root namespace to dst:9, each from a fresh ephemeral source port."""
    for _ in range(count):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.sendto(b"e3", (dst, 9))


def _assert_all_gone(plan: RackPlan, state: Path, bridge_existed: bool) -> None:
    left = [ns for ns in netns.list_netns() if ns.startswith(f"e3-{plan.cluster}-")]
    assert not left, f"namespaces left: {left}"
    root_ifs = [plan.uplink.root_ifname] + [s.mgmt_root_ifname for s in plan.servers]
    assert not [name for name in root_ifs if netns.link_exists(name)]
    if not bridge_existed:
        assert not netns.link_exists(MGMT_BRIDGE)
    assert netns.routes(RACK_PREFIX) == []
    assert not state.exists()
    assert not Path(plan.memif_dir).exists()
    assert not [n.file_prefix for n in plan.nics() if (Path(DPDK_RUNTIME_ROOT) / n.file_prefix).exists()]


def test_create_routes_host_ip_over_all_ports_by_l4_hash_and_destroy_removes_everything(rack):
    plan, state, bridge_existed = rack
    steps: list[str] = []
    rack_network.create(plan, state, on_step=steps.append)

    assert set(plan.namespaces()) <= set(netns.list_netns())
    assert json.loads(state.read_text())["created"] == steps
    s1 = plan.servers[0]
    routes = _tor_routes(plan)
    host = routes[s1.host_ip]
    assert [hop["dev"] for hop in host["nexthops"]] == ["t1p0", "t1p1", "t1p2", "t1p3"]
    assert [routes[nic.ip]["dev"] for nic in s1.nics] == ["t1p0", "t1p1", "t1p2", "t1p3"]
    assert routes["default"]["gateway"] == "10.3.0.1"
    assert [(r["gateway"], r["dev"]) for r in netns.routes(RACK_PREFIX)] == [("10.3.0.2", plan.uplink.root_ifname)]
    assert netns.ip_json("-4", "route", "show", "default", ns=s1.ns)[0]["gateway"] == plan.mgmt_gateway
    hash_policy = netns.run(netns.exec_argv(plan.tor_ns, ["sysctl", "-n", "net.ipv4.fib_multipath_hash_policy"]))
    assert hash_policy.strip() == "1"
    wire = netns.ip_json("addr", "show", ns=s1.ns)
    assert all(not a["addr_info"] for a in wire if a["ifname"].startswith("p")), "wire ports must carry no address"
    assert [a["address"] for a in wire if a["ifname"].startswith("p")] == [p.server_mac for p in s1.ports]

    ports = [p.server_ifname for p in s1.ports]
    tor_ports = [p.tor_ifname for p in s1.ports]
    _stand_in_for_nics(s1.ns, s1.host_ip, ports)
    before = _tx_packets(plan.tor_ns, tor_ports)
    _send_udp_from_many_ports(s1.host_ip, DATAGRAMS)
    time.sleep(0.2)
    after = _tx_packets(plan.tor_ns, tor_ports)
    spread = {name: after[name] - before[name] for name in tor_ports}  # includes an ARP request or two each
    share = DATAGRAMS / len(tor_ports)
    assert all(0.6 * share <= n <= 1.4 * share for n in spread.values()), f"ECMP spread over the ports: {spread}"

    rack_network.destroy(state)
    _assert_all_gone(plan, state, bridge_existed)


def test_destroy_is_idempotent_and_stops_processes_and_removes_dpdk_files(rack):
    plan, state, bridge_existed = rack
    rack_network.create(plan, state)
    nic = plan.servers[1].nics[2]
    runtime = Path(DPDK_RUNTIME_ROOT) / nic.file_prefix
    runtime.mkdir(parents=True, exist_ok=True)
    (runtime / "config").write_text("")
    Path(nic.memif_socket).touch()
    sleeper = subprocess.Popen(netns.exec_argv(plan.servers[1].ns, ["sleep", "300"]))
    try:
        rack_network.destroy(state)
        assert sleeper.wait(timeout=10) == -signal.SIGTERM
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
    _assert_all_gone(plan, state, bridge_existed)
    rack_network.destroy(state)
    rack_network.destroy(plan, state_path=state)
    _assert_all_gone(plan, state, bridge_existed)


def test_create_refuses_a_second_rack(rack):
    plan, state, _ = rack
    rack_network.create(plan, state)
    with pytest.raises(rack_network.RackError, match="already up"):
        rack_network.create(plan, state)
    other = plan_rack(f"{plan.cluster}x", 1, "type1-smartnic")
    with pytest.raises(rack_network.RackError, match="10.3.0.0/16 is already routed"):
        rack_network.create(other, state.with_name("other.json"))
    assert not state.with_name("other.json").exists()


def _route_to(address: str) -> dict:
    return netns.ip_json("-4", "route", "get", address)[0]


def _resolves(name: str) -> bool:
    return subprocess.run(["getent", "hosts", name], capture_output=True, timeout=10).returncode == 0


def test_issue19_item12_the_machines_resolvers_and_gateway_stay_off_the_racks_bridge(rack):
    """With the rack up, the machine's DNS resolvers and default gateway are reached as before (a 10.255.0.0/16
    management network used to take 10.255.255.53, this machine's resolver, and name resolution failed)."""
    plan, state, _ = rack
    host = rack_network.host_network()
    resolvers = [r for r in host.resolvers if ":" not in r]
    gateways = [r.gateway for r in host.routes if r.dst == "default" and r.gateway]
    before = {address: _route_to(address) for address in resolvers + gateways}
    name = "pypi.org"  # resolved through the machine's DNS (not /etc/hosts), if it resolves at all here
    resolved_before = _resolves(name)
    rack_network.create(plan, state)
    rack_devs = {plan.mgmt_bridge, plan.uplink.root_ifname} | {s.mgmt_root_ifname for s in plan.servers}
    for address, route in before.items():
        now = _route_to(address)
        assert now["dev"] not in rack_devs, (address, now)
        assert (now["dev"], now.get("gateway")) == (route["dev"], route.get("gateway")), address
    assert _resolves(name) == resolved_before


CRASHING_CREATE = """
import os, signal, sys
from pathlib import Path
from e3.emulation import rack_network
from e3.emulation.rack_plan import RackPlan

plan = RackPlan.from_json(Path(sys.argv[1]).read_text())

def crash_on(step):
    if step == sys.argv[3]:
        os.kill(os.getpid(), signal.SIGKILL)

rack_network.create(plan, Path(sys.argv[2]), on_step=crash_on)
"""


def test_destroy_from_the_state_file_alone_after_create_was_killed(rack, tmp_path):
    plan, state, bridge_existed = rack
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.to_json())
    crash_at = f"ports:{plan.servers[1].ns}"  # namespaces, uplink, management and server 1's ports exist
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(BACKEND), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", CRASHING_CREATE, str(plan_file), str(state), crash_at],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert crash_at not in json.loads(state.read_text())["created"]
    assert set(plan.namespaces()) <= set(netns.list_netns())
    assert netns.link_exists(plan.uplink.root_ifname)

    rack_network.destroy(state)
    _assert_all_gone(plan, state, bridge_existed)


def _qdisc(ns: str, ifname: str) -> str:
    return json.loads(netns.run(netns.exec_argv(ns, ["tc", "-j", "qdisc", "show", "dev", ifname])))[0]["kind"]


def test_host_routed_over_one_dedicated_nic_and_paced_ports_then_back_to_the_default(rack):
    plan, state, _ = rack
    rack_network.create(plan, state)
    s1 = plan.servers[0]
    tor_ports = [p.tor_ifname for p in s1.ports]
    _stand_in_for_nics(s1.ns, s1.host_ip, [p.server_ifname for p in s1.ports])

    rack_network.route_host_via(plan, s1, [2])  # Figure 9's dedicated host NIC
    assert _tor_routes(plan)[s1.host_ip]["dev"] == "t1p2"
    before = _tx_packets(plan.tor_ns, tor_ports)
    _send_udp_from_many_ports(s1.host_ip, 200)
    time.sleep(0.2)
    after = _tx_packets(plan.tor_ns, tor_ports)
    spread = {name: after[name] - before[name] for name in tor_ports}
    assert spread["t1p2"] >= 200 and all(spread[n] <= 2 for n in tor_ports if n != "t1p2"), spread
    assert [_tor_routes(plan)[n.ip]["dev"] for n in s1.nics] == tor_ports  # the NICs' own routes stay
    with pytest.raises(ValueError, match="nic_indexes"):
        rack_network.route_host_via(plan, s1, [7])

    rack_network.pace_ports(plan, 2e6)
    assert {_qdisc(plan.tor_ns, n) for n in tor_ports} == {"tbf"}
    rack_network.pace_ports(plan, None)
    assert "tbf" not in {_qdisc(plan.tor_ns, n) for n in tor_ports}
    rack_network.pace_ports(plan, None)  # twice is harmless

    rack_network.route_host_via(plan, s1, None)
    assert [hop["dev"] for hop in _tor_routes(plan)[s1.host_ip]["nexthops"]] == tor_ports
