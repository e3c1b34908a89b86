"""The controller's families in Prometheus' text exposition format (version 0.0.4), from its energy ledger.

Written out by hand rather than through prometheus_client: at 5,000 nodes and 20,000 instances (about 52,000
series, 7.8 MB) prometheus_client's collector took 6 to 12 times as long (`e3 bench metrics` prints both),
because here each series' label text is built once and kept until its labels change.

Cardinality (docs/energy.md, "Prometheus metrics"): per node one joules series per power source it reported and
one watts series, per instance one joules series per source and one requests series; sources are at most
rapl | ipmi | ipmi-split | model.
"""

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

NODE_JOULES = "e3_node_joules_total"
NODE_WATTS = "e3_node_power_watts"
INSTANCE_JOULES = "e3_instance_joules_total"
REQUESTS = "e3_requests_total"
HEARTBEATS = "e3_heartbeats_received_total"
REJECTED = "e3_heartbeats_rejected_total"
FAMILIES = (NODE_JOULES, NODE_WATTS, INSTANCE_JOULES, REQUESTS, HEARTBEATS, REJECTED)
# `entry` of a requests series: "true" for an entry DAG node's primary, whose requests are its application's
# (as the energy history counts them: docs/energy.md, "Energy history"), "false" for the others
_ENTRY = {True: "true", False: "false", None: "unknown"}

_HEADERS = {
    NODE_JOULES: ("counter", "Energy of a computing node since the controller started, joules, by the power source "
                             "of each heartbeat's reading."),
    NODE_WATTS: ("gauge", "A computing node's power in its latest heartbeat, watts; source: that reading's."),
    INSTANCE_JOULES: ("counter", "Energy attributed to a microservice instance (idle share + dynamic share by CPU "
                                 "time), joules, by power source; closed 10 s steps, so it lags the node's counter."),
    REQUESTS: ("counter", "Requests a microservice instance completed, as its agent reported them; added with its "
                          "joules when a step closes. entry=\"true\": an entry DAG node's primary, whose requests "
                          "are its application's."),
    HEARTBEATS: ("counter", "Heartbeats the controller accepted, all nodes."),
    REJECTED: ("counter", "Heartbeats the controller refused, by reason: not_registered, out_of_order, stale_epoch "
                          "(sent under a lease epoch the node has left), invalid (a field out of bounds), oversized "
                          "(a batch too long), forbidden (another credential's node)."),
}


def escape(value: str) -> str:
    """A label value as the exposition format wants it: backslash, double quote and newline escaped."""
    if "\\" in value or '"' in value or "\n" in value:
        return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return value


def number(value: float) -> str:
    if math.isfinite(value):
        return repr(float(value))
    return "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")


def header(name: str) -> str:
    kind, text = _HEADERS[name]
    return f"# HELP {name} {text}\n# TYPE {name} {kind}\n"


@dataclass(frozen=True)
class _NodeLabels:
    full: str  # cluster, node, kind
    cluster: str
    node: str


@dataclass(frozen=True, slots=True)
class NodeFigures:
    node_id: str
    cluster_id: str
    name: str
    kind: str
    joules_by_source: dict[str, float]
    watts: float
    source: str  # the latest heartbeat's; "" before the first
    heartbeats: int

    @classmethod
    def of(cls, node_id: str, totals, current: bool = True) -> "NodeFigures":
        """`current`: whether its watts are current here (False: no watts, as before its first heartbeat; the
        controller it moved to has them)."""
        return cls(node_id, totals.cluster_id, totals.name, totals.kind, totals.joules_by_source, totals.watts,
                   totals.source if current else "", totals.heartbeats)


@dataclass(frozen=True)
class LedgerSnapshot:
    """What a render reads, taken on the controller's loop so that the render may run in a thread while
    heartbeats keep coming: each node's figures (its joules are summed over its open steps, which the loop
    changes), and the instances' (id, totals) pairs, whose values change only when a step closes, on the loop,
    and are each read once by the render (a dictionary's items copied in one step)."""

    nodes: list[NodeFigures]
    instances: list  # [(instance id, InstanceTotals)]
    heartbeats: int
    rejected: Mapping[str, int] = field(default_factory=dict)  # heartbeats refused, by reason

    @classmethod
    def of(cls, ledger, rejected: Mapping[str, int] | None = None) -> "LedgerSnapshot":
        return cls.assemble(ledger, [NodeFigures.of(node_id, n) for node_id, n in ledger.nodes.items()], rejected)

    @classmethod
    def assemble(cls, ledger, nodes: list[NodeFigures],
                 rejected: Mapping[str, int] | None = None) -> "LedgerSnapshot":
        """From node figures taken a slice at a time (controller.metrics_export: the loop goes on between)."""
        return cls(nodes, list(ledger.instances.items()), sum(n.heartbeats for n in nodes),
                   dict(rejected or {}))

    def cluster_ids(self) -> set[str]:
        return {node.cluster_id for node in self.nodes}


class LedgerExposition:
    """Renders snapshots; keeps each node's and instance's label text between renders (a node keeps its name,
    kind and cluster; an instance's labels change when the controller resolves them or it moves)."""

    def __init__(self):
        self._node_labels: dict[str, tuple[tuple, str]] = {}
        self._instance_labels: dict[str, tuple[tuple, str]] = {}

    def render(self, snapshot: LedgerSnapshot, cluster_names: Mapping[str, str],
               counts_requests: Callable[[str], bool | None] = lambda instance_id: None) -> str:
        """The exposition text. A node whose cluster has no name in `cluster_names` (deleted, or not read yet)
        and an instance whose labels are not resolved yet, or whose node is not in the ledger, are left out.
        `counts_requests(instance id)`: whether its requests are its application's (an entry primary), the
        `entry` label of its requests series (`unknown` when None)."""
        nodes = {}
        joules, watts = [header(NODE_JOULES)], [header(NODE_WATTS)]
        for node in snapshot.nodes:
            labels = self._node_label_text(node, cluster_names)
            if labels is None:
                continue
            nodes[node.node_id] = labels
            for source, value in node.joules_by_source.items():
                joules.append(f'{NODE_JOULES}{{{labels.full},source="{escape(source)}"}} {number(value)}\n')
            if node.source:  # it has reported
                watts.append(f'{NODE_WATTS}{{{labels.full},source="{escape(node.source)}"}} {number(node.watts)}\n')
        instance_joules, requests = [header(INSTANCE_JOULES)], [header(REQUESTS)]
        for instance_id, totals in snapshot.instances:
            labels = self._instance_label_text(instance_id, totals.node_id, totals.labels, nodes)
            if labels is None:
                continue
            for source, value in tuple(totals.joules_by_source.items()):
                instance_joules.append(f'{INSTANCE_JOULES}{{{labels},source="{escape(source)}"}} {number(value)}\n')
            entry = _ENTRY[counts_requests(instance_id)]
            requests.append(f'{REQUESTS}{{{labels},entry="{entry}"}} {number(totals.requests)}\n')
        tail = f"{header(HEARTBEATS)}{HEARTBEATS} {number(snapshot.heartbeats)}\n{header(REJECTED)}" + "".join(
            f'{REJECTED}{{reason="{escape(reason)}"}} {number(count)}\n' for reason, count in sorted(snapshot.rejected.items()))
        self._forget(self._node_labels, {node.node_id for node in snapshot.nodes})
        self._forget(self._instance_labels, {instance_id for instance_id, _ in snapshot.instances})
        return "".join(joules) + "".join(watts) + "".join(instance_joules) + "".join(requests) + tail

    def _node_label_text(self, node: NodeFigures, cluster_names: Mapping[str, str]) -> "_NodeLabels | None":
        cluster = cluster_names.get(node.cluster_id)
        if cluster is None:
            return None
        key = (cluster, node.name, node.kind)
        cached = self._node_labels.get(node.node_id)
        if cached is None or cached[0] != key:
            cluster_label, node_label = f'cluster="{escape(cluster)}"', f'node="{escape(node.name)}"'
            cached = key, _NodeLabels(f'{cluster_label},{node_label},kind="{escape(node.kind)}"', cluster_label,
                                      node_label)
            self._node_labels[node.node_id] = cached
        return cached[1]

    def _instance_label_text(self, instance_id: str, node_id: str, resolved: tuple | None,
                             nodes: Mapping[str, "_NodeLabels"]) -> str | None:
        node = nodes.get(node_id)
        if resolved is None or node is None:
            return None
        key = (resolved, node)
        cached = self._instance_labels.get(instance_id)
        if cached is None or cached[0] != key:
            _, application, dag_node = resolved
            # the node's cluster and name, not its kind: the instance's series say where it runs
            cached = key, (f'{node.cluster},application="{escape(application)}",dag_node="{escape(dag_node)}",'
                           f'instance="{escape(instance_id)}",{node.node}')
            self._instance_labels[instance_id] = cached
        return cached[1]

    @staticmethod
    def _forget(cache: dict, alive: set[str]) -> None:
        if len(cache) > len(alive):  # gone from the ledger: its label text goes too
            for key in set(cache) - alive:
                del cache[key]
