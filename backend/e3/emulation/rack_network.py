"""Create and destroy the network of an emulated SmartNIC rack (see rack_plan and docs/rack.md).

create() first writes the plan to a state file, then records every step in it as it goes, writing
it atomically each time. destroy() works from the plan alone (given directly or read back from the
state file) and removes everything the plan could have created, whatever exists of it: so it cleans
up a rack whose create() crashed half-way, and running it twice is harmless. It also stops the
processes left in the rack's namespaces and removes the NICs' DPDK runtime directories and the memif
socket directory.

Only one rack may exist per machine at a time: it owns 10.3.0.0/16 in the root namespace. Neither that
range nor the management network may cover the machine's own routes, addresses, DNS resolvers or default
gateway (rack_addresses): the management network is the first free candidate, 10.3.0.0/16 must be free.
"""

import ipaddress
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from e3.emulation import netns
from e3.emulation.netns import NetnsError
from e3.emulation.rack_addresses import AddressConflict, HostNetwork, conflicts, pick_free
from e3.emulation.rack_plan import (
    DPDK_RUNTIME_ROOT,
    MEMIF_ROOT,
    MGMT_BRIDGE,
    MGMT_NETWORKS,
    RACK_PREFIX,
    PortPlan,
    RackPlan,
    ServerPlan,
    mgmt_gateway,
)

__all__ = ["NetnsError", "RackError", "create", "destroy", "ensure_mgmt_bridge", "host_network", "load_state",
           "mgmt_network", "pace_ports", "rack_mgmt_gateway", "remove_mgmt_bridge_if_unused", "route_host_via"]
RESOLV_CONF = Path("/etc/resolv.conf")

OnStep = Callable[[str], None] | None

STATE_VERSION = 1
TOR_SYSCTLS = {
    "net.ipv4.ip_forward": 1,
    "net.ipv4.fib_multipath_hash_policy": 1,  # L4: the 5-tuple picks the host route's nexthop
    "net.ipv4.conf.all.rp_filter": 0,
    "net.ipv4.conf.default.rp_filter": 0,
    "net.ipv4.conf.all.send_redirects": 0,
    "net.ipv4.conf.default.send_redirects": 0,
    # A port whose peer lost carrier (its NIC died) leaves the host routes' ECMP sets.
    "net.ipv4.conf.all.ignore_routes_with_linkdown": 1,
    "net.ipv4.conf.default.ignore_routes_with_linkdown": 1,
}
NO_IPV6 = {"net.ipv6.conf.all.disable_ipv6": 1, "net.ipv6.conf.default.disable_ipv6": 1}


class RackError(RuntimeError):
    """The rack cannot be created here (unsupported, or another rack or route is in the way)."""


@dataclass(frozen=True)
class _Step:
    key: str
    action: Callable[[], Any]


# --- address plan and management bridge ---------------------------------------------------------


def host_network() -> HostNetwork:
    """This machine's IPv4 routes and addresses (root namespace) and its DNS resolvers."""
    try:
        resolv_conf = RESOLV_CONF.read_text()
    except OSError:
        resolv_conf = ""
    return HostNetwork.parse(netns.ip_json("-4", "route", "show"), netns.ip_json("-4", "addr", "show"), resolv_conf)


def _bridge_network() -> str | None:
    """The management network the bridge holds now, or None (no bridge, or no IPv4 address on it)."""
    if not netns.link_exists(MGMT_BRIDGE):
        return None
    for entry in netns.ip_json("-4", "addr", "show", "dev", MGMT_BRIDGE):
        for a in entry.get("addr_info", []):
            return str(ipaddress.ip_interface(f"{a['local']}/{a['prefixlen']}").network)
    return None


def mgmt_network() -> str:
    """The rack's management network on this machine: the one the bridge holds, while it exists (a rack may be
    attached), else the first of MGMT_NETWORKS free of the machine's routes, addresses, resolvers and default
    gateway. RackError naming the conflict when the bridge's network covers one, or when no candidate is free."""
    host = host_network()
    held = _bridge_network()
    if held is not None:
        found = conflicts(held, host, own_devs=[MGMT_BRIDGE])
        if found:
            raise RackError(f"the management bridge {MGMT_BRIDGE} holds {held}, which covers {', '.join(found)}: "
                            f"take the racks down (`e3 cluster down NAME`) or delete it (`ip link del {MGMT_BRIDGE}`)")
        return held
    try:
        return pick_free("the rack's management network", MGMT_NETWORKS, host, own_devs=[MGMT_BRIDGE])
    except AddressConflict as exc:
        raise RackError(str(exc)) from exc


def rack_mgmt_gateway() -> str:
    """Where the rack's programs reach the controller (the management bridge's address): bind the controller
    there too (`e3 controller --host 127.0.0.1,<it>`)."""
    return mgmt_gateway(mgmt_network())


def ensure_mgmt_bridge(network: str | None = None) -> bool:
    """Make sure the management bridge exists, is up and holds the gateway of `network` (default:
    mgmt_network()); True if it was created. Usable before the controller starts, so that it can bind it.
    RackError if the bridge holds another network (a rack of another plan is attached)."""
    network = network or mgmt_network()
    held = _bridge_network()
    if held is not None and held != network:
        raise RackError(f"the management bridge {MGMT_BRIDGE} holds {held}, not {network}: take the racks down first")
    created = not netns.link_exists(MGMT_BRIDGE)
    if created:
        netns.ip("link", "add", MGMT_BRIDGE, "type", "bridge")
    if held is None:
        netns.ip("addr", "add", f"{mgmt_gateway(network)}/{network.split('/')[1]}", "dev", MGMT_BRIDGE)
    netns.ip("link", "set", "dev", MGMT_BRIDGE, "up")
    return created


def remove_mgmt_bridge_if_unused() -> None:
    """Delete the management bridge if no interface is attached to it any more."""
    if netns.link_exists(MGMT_BRIDGE) and not netns.ip_json("link", "show", "master", MGMT_BRIDGE):
        netns.ip("link", "del", "dev", MGMT_BRIDGE)


# --- state file ----------------------------------------------------------------------------------


def write_json(path: Path, data: Any) -> None:
    """Write `data` as JSON to `path` atomically (readers never see half a file); parents created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2))
    os.replace(tmp, path)


def load_state(path: Path) -> dict[str, Any] | None:
    """The state file's content ({"cluster", "plan", "created", ...}), or None if there is none."""
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RackError(f"cannot read rack state file {path}: {exc}") from exc


# --- create --------------------------------------------------------------------------------------


def _sysctls(extra: dict[str, int]) -> dict[str, int]:
    """`extra` plus disabling IPv6, if this kernel has IPv6 at all."""
    return {**(NO_IPV6 if Path("/proc/sys/net/ipv6").is_dir() else {}), **extra}


def _add_tor(plan: RackPlan) -> None:
    netns.add_netns(plan.tor_ns)
    netns.sysctl(_sysctls(TOR_SYSCTLS), ns=plan.tor_ns)


def _add_server_ns(server: ServerPlan) -> None:
    netns.add_netns(server.ns)
    netns.sysctl(_sysctls({}), ns=server.ns)


def _add_uplink(plan: RackPlan) -> None:
    up = plan.uplink
    netns.ip("link", "add", up.root_ifname, "type", "veth", "peer", "name", up.tor_ifname, "netns", plan.tor_ns)
    netns.ip("addr", "add", f"{up.root_ip}/{up.prefixlen}", "dev", up.root_ifname)
    netns.ip("link", "set", "dev", up.root_ifname, "up")
    netns.ip("addr", "add", f"{up.tor_ip}/{up.prefixlen}", "dev", up.tor_ifname, ns=plan.tor_ns)
    netns.ip("link", "set", "dev", up.tor_ifname, "up", ns=plan.tor_ns)
    netns.ip("route", "add", up.rack_prefix, "via", up.tor_ip, "dev", up.root_ifname)
    netns.ip("route", "add", "default", "via", up.root_ip, ns=plan.tor_ns)


def _add_mgmt_link(plan: RackPlan, server: ServerPlan) -> None:
    root_if, ns = server.mgmt_root_ifname, server.ns
    netns.ip("link", "add", root_if, "type", "veth", "peer", "name", server.mgmt_ifname, "netns", ns)
    netns.ip("link", "set", "dev", root_if, "master", plan.mgmt_bridge, "up")
    netns.ip("addr", "add", f"{server.mgmt_ip}/{plan.mgmt_prefixlen}", "dev", server.mgmt_ifname, ns=ns)
    netns.ip("link", "set", "dev", server.mgmt_ifname, "up", ns=ns)
    netns.ip("route", "add", "default", "via", plan.mgmt_gateway, ns=ns)


def _add_ports(plan: RackPlan, server: ServerPlan) -> None:
    """The server's wire veths (no addresses: the emulated NICs own them) and the ToR's routes to it."""
    tor = plan.tor_ns
    for port in server.ports:
        netns.ip(
            "link", "add", port.tor_ifname, "netns", tor, "address", port.tor_mac, "type", "veth",
            "peer", "name", port.server_ifname, "netns", server.ns, "address", port.server_mac,
        )  # fmt: skip
        netns.ip("link", "set", "dev", port.tor_ifname, "up", ns=tor)
        netns.ip("link", "set", "dev", port.server_ifname, "up", ns=server.ns)
    for nic in server.nics:
        first = server.ports[nic.ports[0]]
        netns.ip("route", "add", f"{nic.ip}/32", "dev", first.tor_ifname, ns=tor)
    netns.ip("route", "add", f"{server.host_ip}/32", *_nexthops(server.ports), ns=tor)


def _nexthops(ports: list[PortPlan]) -> list[str]:
    """The host route's ECMP nexthops over `ports` (the ToR's ends)."""
    return [arg for port in ports for arg in ("nexthop", "dev", port.tor_ifname)]


def route_host_via(plan: RackPlan, server: ServerPlan, nic_indexes: list[int] | None = None) -> None:
    """Route `server`'s host IP on the ToR over the ports of the NICs `nic_indexes` only (None: all of its ports,
    the rack's default). A rack variant set after `create()`: with one NIC that runs nothing, it is the paper's
    dedicated host NIC (§5.3, Figure 9); `create()` itself always routes the host over every port."""
    wanted = None if nic_indexes is None else set(nic_indexes)
    ports = [p for p in server.ports if wanted is None or p.nic_index in wanted]
    if not ports:
        raise ValueError(f"nic_indexes: {nic_indexes!r} names no NIC of {server.name}")
    netns.ip("route", "replace", f"{server.host_ip}/32", *_nexthops(ports), ns=plan.tor_ns)


def pace_ports(plan: RackPlan, rate_bit_s: float | None) -> None:
    """Limit every wire port's ToR -> server direction to `rate_bit_s` (a token bucket on the ToR's end);
    None removes the limit. The emulated links are veths with no rate of their own: this is how a
    10 GbE port's limit is scaled onto them (e.g. for Figure 9)."""
    for server in plan.servers:
        for port in server.ports:
            tc = ["tc", "qdisc", "replace" if rate_bit_s else "del", "dev", port.tor_ifname, "root"]
            if rate_bit_s:
                burst = max(int(rate_bit_s / 8 / 100), 4096)  # 10 ms at the rate, at least a few frames
                tc += ["tbf", "rate", f"{int(rate_bit_s)}bit", "burst", str(burst), "latency", "50ms"]
            try:
                netns.run(netns.exec_argv(plan.tor_ns, tc))
            except NetnsError:
                if rate_bit_s:
                    raise  # deleting a limit that is not there is fine


def _steps(plan: RackPlan) -> list[_Step]:
    """Everything create() does, in order; each step is recorded in the state file once done."""
    steps = [
        _Step("mgmt-bridge", lambda: ensure_mgmt_bridge(plan.mgmt_network)),
        _Step(f"dir:{plan.memif_dir}", lambda: Path(plan.memif_dir).mkdir(parents=True, exist_ok=True)),
        _Step(f"netns:{plan.tor_ns}", lambda: _add_tor(plan)),
    ]
    steps += [_Step(f"netns:{s.ns}", lambda s=s: _add_server_ns(s)) for s in plan.servers]
    steps.append(_Step(f"uplink:{plan.uplink.root_ifname}", lambda: _add_uplink(plan)))
    steps += [_Step(f"mgmt:{s.mgmt_root_ifname}", lambda s=s: _add_mgmt_link(plan, s)) for s in plan.servers]
    steps += [_Step(f"ports:{s.ns}", lambda s=s: _add_ports(plan, s)) for s in plan.servers]
    return steps


def _check_free(plan: RackPlan, state_path: Path) -> None:
    """Raise RackError unless this machine can take the rack."""
    reason = netns.netns_supported()
    if reason:
        raise RackError(f"cannot emulate a rack in network namespaces: {reason}. Use `--mode local` instead.")
    state = load_state(state_path)
    if state is not None:
        raise RackError(
            f"rack {state.get('cluster')!r} is already up (state file {state_path}): "
            "only one rack per machine; take it down first"
        )
    host = host_network()
    routed = [r for r in host.routes if r.dst == RACK_PREFIX]
    if routed:
        raise RackError(f"{RACK_PREFIX} is already routed in the root namespace (via {routed[0].dev}): "
                        "another rack is up?")
    found = conflicts(RACK_PREFIX, host)
    if found:
        raise RackError(f"{RACK_PREFIX}, the rack's addresses, would cover {', '.join(found)} on this machine")
    found = conflicts(plan.mgmt_network, host, own_devs=[MGMT_BRIDGE])
    if found:
        raise RackError(f"{plan.mgmt_network}, the rack's management network, would cover {', '.join(found)} "
                        "on this machine")
    taken = sorted(set(plan.namespaces()) & set(netns.list_netns()))
    if taken:
        raise RackError(f"network namespaces already exist: {', '.join(taken)}")
    root_ifnames = [plan.uplink.root_ifname] + [s.mgmt_root_ifname for s in plan.servers]
    taken = [name for name in root_ifnames if netns.link_exists(name)]
    if taken:
        raise RackError(f"interfaces already exist in the root namespace: {', '.join(taken)}")


def create(plan: RackPlan, state_path: Path, on_step: OnStep = None) -> None:
    """Build the rack's namespaces, veths, routes and memif directory, recording progress in `state_path`.

    Refuses (RackError) without root/netns support, or if a rack is already up. If a step fails, what was
    built is destroyed again and the error re-raised.
    """
    _check_free(plan, state_path)
    state: dict[str, Any] = {"version": STATE_VERSION, "cluster": plan.cluster, "plan": plan.to_dict(), "created": []}
    write_json(state_path, state)
    try:
        for step in _steps(plan):
            if on_step:
                on_step(step.key)
            step.action()
            state["created"].append(step.key)
            write_json(state_path, state)
    except BaseException as exc:
        try:
            destroy(state_path)
        except Exception as cleanup:  # keep the original error; say the cleanup failed too
            exc.add_note(f"cleaning up the half-built rack failed as well: {cleanup}")
        raise


# --- destroy -------------------------------------------------------------------------------------


def _remove_tree(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)


def destroy(plan_or_state: RackPlan | Path, on_step: OnStep = None, state_path: Path | None = None) -> None:
    """Remove everything of a rack: processes in its namespaces, namespaces, veths, routes, DPDK
    runtime and memif directories, the management bridge if nothing else uses it, and the state file.

    Give either the plan or the state file's path (the state file is then removed last; with a plan,
    pass `state_path` to have it removed). Idempotent: a missing state file or missing parts are fine.
    """
    if isinstance(plan_or_state, RackPlan):
        plan = plan_or_state
    else:
        state_path = plan_or_state
        state = load_state(state_path)
        if state is None:
            return
        plan = RackPlan.from_dict(state["plan"])

    def step(what: str) -> None:
        if on_step:
            on_step(what)

    existing = [ns for ns in plan.namespaces() if ns in set(netns.list_netns())]
    step("stop processes in the rack's namespaces")
    netns.stop_processes([pid for ns in existing for pid in netns.netns_pids(ns)])
    step("root-namespace veths")
    netns.delete_link(plan.uplink.root_ifname)  # takes its 10.3.0.0/16 route along
    for server in plan.servers:
        netns.delete_link(server.mgmt_root_ifname)
    for ns in reversed(existing):
        step(f"netns:{ns}")
        netns.delete_netns(ns)
    step("management bridge (if unused)")
    remove_mgmt_bridge_if_unused()
    step("DPDK runtime and memif directories")
    for prefix in [nic.file_prefix for nic in plan.nics()] + [s.host_file_prefix for s in plan.servers]:
        _remove_tree(Path(DPDK_RUNTIME_ROOT) / prefix)
    _remove_tree(Path(plan.memif_dir))
    try:
        Path(MEMIF_ROOT).rmdir()
    except OSError:
        pass  # missing, or another cluster's directory is in it
    if state_path is not None:
        state_path.unlink(missing_ok=True)
