"""Communication for the cost model: RTT by topology level (paper Figure 3), shard-pair level mixes, ports.

Pure. An edge between two DAG nodes is costed as the average over all (parent shard, child
shard) pairs, each pair's RTT set by `level_between` and the kinds at its two ends; the averages
come from per-node/server/rack/pod counts of one side's shards, never from a loop over pairs.
Numbers and their sources: docs/placement-cost-model.md.
"""

from collections import Counter, defaultdict
from collections.abc import Hashable

from e3.placement.model import (LEVEL_POD, LEVEL_RACK_HOST, LEVEL_RACK_SMARTNIC, LEVEL_REMOTE, LEVEL_SAME_NODE,
                                LEVEL_SAME_SERVER, NodeCapacity, level_between)

# Paper §2.4 / Figure 3 (32-128 B payloads): SmartNIC-host over PCIe and
# SmartNIC-SmartNIC through the ToR have an RTT 83.3% and 86.2% lower than host-host
# kernel-bypass (DPDK) through the ToR. Those two ratios are the paper's; every absolute
# figure below is our assumption (the paper's text gives none).
FIG3_PCIE_RTT_REDUCTION = 0.833
FIG3_SMARTNIC_RTT_REDUCTION = 0.862
HOST_HOST_RTT_US = 15.0  # assumed anchor: host-host DPDK RTT through one ToR
SMARTNIC_HOST_RTT_US = HOST_HOST_RTT_US * (1 - FIG3_PCIE_RTT_REDUCTION)  # 2.505 µs, PCIe
SMARTNIC_SMARTNIC_RTT_US = HOST_HOST_RTT_US * (1 - FIG3_SMARTNIC_RTT_REDUCTION)  # 2.07 µs, via the ToR
SAME_NODE_RTT_US = 0.5  # assumed: shared-memory FIFO queues between co-located instances (§4)
SWITCH_HOP_RTT_US = 2.0  # assumed: each switch beyond the ToR adds 1 µs each way
EXTRA_SWITCHES = {LEVEL_POD: 2, LEVEL_REMOTE: 4}  # FatTree (§5.6): via aggregation; via aggregation and core
# A network path costs each end half of its kind's symmetric RTT: host-SmartNIC across servers
# is the mean of host-host and SmartNIC-SmartNIC.
_HALF_RTT_US = {"host": HOST_HOST_RTT_US / 2, "smartnic": SMARTNIC_SMARTNIC_RTT_US / 2}
# Typical RTT of each level (host-host beyond the rack), for tables and docs.
LEVEL_RTT_US = {
    LEVEL_SAME_NODE: SAME_NODE_RTT_US,
    LEVEL_SAME_SERVER: SMARTNIC_HOST_RTT_US,
    LEVEL_RACK_SMARTNIC: SMARTNIC_SMARTNIC_RTT_US,
    LEVEL_RACK_HOST: HOST_HOST_RTT_US,
    LEVEL_POD: HOST_HOST_RTT_US + EXTRA_SWITCHES[LEVEL_POD] * SWITCH_HOP_RTT_US,
    LEVEL_REMOTE: HOST_HOST_RTT_US + EXTRA_SWITCHES[LEVEL_REMOTE] * SWITCH_HOP_RTT_US,
}
LEVEL_NAMES = {LEVEL_SAME_NODE: "same_node", LEVEL_SAME_SERVER: "same_server", LEVEL_RACK_SMARTNIC: "rack_smartnic",
               LEVEL_RACK_HOST: "rack_host", LEVEL_POD: "pod", LEVEL_REMOTE: "remote"}

# Ports: Table 1's ~2 M rps peaks for 512 B requests are 89-95% of 10 GbE line rate, so the knee
# of a port is taken at 90% of line rate.
PORT_KNEE_UTILISATION = 0.9
WIRE_OVERHEAD_BYTES = 66  # UDP (§4) over IPv4 over Ethernet: 8 + 20 + 18 header/FCS + 20 preamble/gap


def rtt_us(level: int, from_kind: str, to_kind: str) -> float:
    """Round-trip time between two computing nodes `level` apart, by the kinds at each end."""
    if level == LEVEL_SAME_NODE:
        return SAME_NODE_RTT_US
    if level == LEVEL_SAME_SERVER and not from_kind == to_kind == "smartnic":
        return SMARTNIC_HOST_RTT_US
    # SmartNICs of one server talk through the ToR (§3.1), like SmartNICs of two servers.
    return _HALF_RTT_US[from_kind] + _HALF_RTT_US[to_kind] + EXTRA_SWITCHES.get(level, 0) * SWITCH_HOP_RTT_US


def edge_rtt_us(a: NodeCapacity, b: NodeCapacity) -> float:
    return rtt_us(level_between(a, b), a.kind, b.kind)


def pair_levels(src: list[NodeCapacity], dst: list[NodeCapacity]) -> tuple[dict[int, float], float]:
    """Over all (src shard, dst shard) pairs: the number of pairs at each level, and their summed RTT."""
    at_node = Counter(b.id for b in dst)
    at_server = Counter((b.pod, b.rack, b.server, b.kind) for b in dst)
    at_rack = Counter((b.pod, b.rack, b.kind) for b in dst)
    at_pod = Counter((b.pod, b.kind) for b in dst)
    of_kind = Counter(b.kind for b in dst)
    levels: dict[int, float] = defaultdict(float)
    total_rtt = 0.0
    for a in src:
        same = at_node[a.id]
        if same:
            levels[LEVEL_SAME_NODE] += same
            total_rtt += same * SAME_NODE_RTT_US
        for kind, n_kind in of_kind.items():
            on_server = at_server[(a.pod, a.rack, a.server, kind)]
            in_rack = at_rack[(a.pod, a.rack, kind)]
            in_pod = at_pod[(a.pod, kind)]
            for level, count in ((LEVEL_SAME_SERVER, on_server - (same if kind == a.kind else 0)),
                                 (LEVEL_RACK_SMARTNIC if kind == "smartnic" else LEVEL_RACK_HOST, in_rack - on_server),
                                 (LEVEL_POD, in_pod - in_rack), (LEVEL_REMOTE, n_kind - in_pod)):
                if count:
                    levels[level] += count
                    total_rtt += count * rtt_us(level, a.kind, kind)
    return levels, total_rtt


def through_ports(src: list[NodeCapacity], dst: list[NodeCapacity]) -> list[float]:
    """Per src shard, the fraction of its pairs with dst shards that uses the server's ports: those on
    other servers, and SmartNIC to another SmartNIC of the same server (through the ToR, §3.1)."""
    at_server = Counter((b.pod, b.rack, b.server) for b in dst)
    nics_at_server = Counter((b.pod, b.rack, b.server) for b in dst if b.kind == "smartnic")
    at_node = Counter(b.id for b in dst)
    out = []
    for a in src:
        key = (a.pod, a.rack, a.server)
        crossing = len(dst) - at_server[key]
        if a.kind == "smartnic":
            crossing += nics_at_server[key] - at_node[a.id]
        out.append(crossing / len(dst))
    return out


def off_node(src: list[NodeCapacity], dst: list[NodeCapacity]) -> list[float]:
    """Per src shard, the fraction of its pairs with dst shards on another computing node (level >= 1):
    the messages it exchanges with dst over the network (PCIe or ports) rather than an in-memory queue."""
    at_node = Counter(b.id for b in dst)
    return [1.0 - at_node[a.id] / len(dst) for a in src]


def busiest_ports(members: list[NodeCapacity], rx: dict, tx: dict) -> tuple[float, Hashable]:
    """Busiest port group of a server per entry request (fraction of line rate), and its node.

    A SmartNIC's ports carry its own traffic plus an even ECMP share of the host's (§3.2); a server
    without SmartNICs has the host's ports.
    """
    nics = [n for n in members if n.kind == "smartnic"]
    hosts = [n for n in members if n.kind != "smartnic"]
    if not nics:
        groups = [(h, rx.get(h.id, 0.0), tx.get(h.id, 0.0)) for h in hosts]
    else:
        host_rx = sum(rx.get(h.id, 0.0) for h in hosts) / len(nics)
        host_tx = sum(tx.get(h.id, 0.0) for h in hosts) / len(nics)
        groups = [(n, rx.get(n.id, 0.0) + host_rx, tx.get(n.id, 0.0) + host_tx) for n in nics]
    return max(((max(r, t) / (n.bandwidth_mbps * 1e6), n.id) for n, r, t in groups if n.bandwidth_mbps > 0),
               key=lambda x: x[0], default=(0.0, None))
