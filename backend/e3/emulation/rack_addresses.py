"""Which IPv4 ranges the emulated rack may take on this machine: pure, no I/O (docs/rack.md, "Address plan").

The rack puts two ranges in the root namespace: its own (`rack_plan.RACK_PREFIX`, routed to the ToR) and its
management network (the `e3mgmt` bridge, where the controller listens). Either would capture whatever of the
machine's own traffic it covers: a /16 over the machine's DNS resolver broke name resolution for the whole
machine while a rack ran (issue 19, item 12). A range is free when it overlaps none of the machine's routes
(other than the default route, which covers everything, and the routes of the rack's own interfaces), holds
none of its addresses and none of the resolvers of /etc/resolv.conf, and not the default route's gateway.

`HostNetwork.parse` reads what `ip -j -4 route`, `ip -j -4 addr` and /etc/resolv.conf say; `conflicts` names
what a range would cover; `pick_free` takes the first free range of a list, or raises `AddressConflict`
naming, for each, what is in its way.
"""

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


class AddressConflict(ValueError):
    """No candidate range is free on this machine; the message names each one's conflicts."""


@dataclass(frozen=True)
class Route:
    dst: str  # "default" or a prefix ("192.0.2.0/24", or a bare address for a /32)
    dev: str
    gateway: str | None = None


@dataclass(frozen=True)
class Address:
    dev: str
    local: str  # the interface's address
    prefixlen: int


@dataclass(frozen=True)
class HostNetwork:
    """The machine's IPv4 routes (main table), interface addresses and DNS resolvers."""

    routes: tuple[Route, ...] = ()
    addresses: tuple[Address, ...] = ()
    resolvers: tuple[str, ...] = ()

    @classmethod
    def parse(cls, routes: Iterable[dict], links: Iterable[dict], resolv_conf: str) -> "HostNetwork":
        """From `ip -j -4 route show`, `ip -j -4 addr show` and /etc/resolv.conf's text."""
        return cls(
            routes=tuple(Route(r["dst"], r.get("dev", ""), r.get("gateway")) for r in routes if "dst" in r),
            addresses=tuple(Address(link.get("ifname", ""), a["local"], int(a.get("prefixlen", 32)))
                            for link in links for a in link.get("addr_info", ()) if a.get("family", "inet") == "inet"
                            and "local" in a),
            resolvers=tuple(line.split()[1] for line in resolv_conf.splitlines()
                            if len(line.split()) >= 2 and line.split()[0] == "nameserver"),
        )


def _ipv4(text: str) -> ipaddress.IPv4Address | None:
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    return address if isinstance(address, ipaddress.IPv4Address) else None


def conflicts(network: str, host: HostNetwork, own_devs: Iterable[str] = ()) -> list[str]:
    """What `network` would cover of the machine (routes, addresses, resolvers, the default gateway), one phrase
    each; empty when it is free. Routes and addresses on `own_devs` (the rack's own interfaces) do not count."""
    net = ipaddress.ip_network(network)
    own = set(own_devs)
    found = []
    for route in host.routes:
        if route.dev in own:
            continue
        if route.dst == "default":
            gateway = _ipv4(route.gateway or "")
            if gateway is not None and gateway in net:
                found.append(f"the default route's gateway {gateway} (dev {route.dev})")
            continue
        try:
            dst = ipaddress.ip_network(route.dst, strict=False)
        except ValueError:
            continue
        if dst.version == 4 and dst.overlaps(net):
            found.append(f"route {route.dst} dev {route.dev}" + (f" via {route.gateway}" if route.gateway else ""))
    for address in host.addresses:
        ip = _ipv4(address.local)
        if address.dev not in own and ip is not None and ip in net:
            found.append(f"address {address.local}/{address.prefixlen} on {address.dev}")
    for resolver in host.resolvers:
        ip = _ipv4(resolver)
        if ip is not None and ip in net:
            found.append(f"DNS resolver {resolver} (/etc/resolv.conf)")
    return found


def pick_free(what: str, candidates: Sequence[str], host: HostNetwork, own_devs: Iterable[str] = ()) -> str:
    """The first of `candidates` that is free on the machine; AddressConflict naming every conflict if none is."""
    own = tuple(own_devs)
    refused = []
    for candidate in candidates:
        found = conflicts(candidate, host, own)
        if not found:
            return candidate
        refused.append(f"{candidate} would cover {', '.join(found)}")
    raise AddressConflict(f"no free range for {what} on this machine: {'; '.join(refused)}")
