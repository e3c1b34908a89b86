"""The cluster as placement sees it: nodes indexed by server, rack and pod, and by free capacity.

Topology order is the order of the `nodes` given, grouped so that a server's nodes, a rack's
servers and a pod's racks are contiguous (in order of first appearance). For nodes listed rack
by rack and server by server, as the deployment service lists them, it is exactly their order.

The free-capacity index is one segment tree per node kind over that kind's nodes in topology
order, holding the maximum free cores, memory and bandwidth of every range: a rack's or a pod's
nodes are a contiguous range, so the tree's entries are per-rack and per-pod summaries, and
"the first node with room in this range" skips whole full racks and pods in O(log n). It stays
right only if reservations go through `Topology.reserve` / `Topology.release`.
"""

from collections.abc import Callable, Container, Hashable, Iterable, Iterator, Sequence

from e3.placement.constraints import EPSILON, can_host
from e3.placement.model import (LEVEL_POD, LEVEL_RACK_HOST, LEVEL_RACK_SMARTNIC, LEVEL_REMOTE, LEVEL_SAME_NODE,
                                LEVEL_SAME_SERVER, InstanceRequest, NodeCapacity)

SMARTNIC = "smartnic"
_NONE = float("-inf")


class _FreeTree:
    """Max free cores / memory / bandwidth over ranges of one kind's nodes (leaf i = the kind's node i)."""

    def __init__(self, nodes: list[NodeCapacity]):
        self.nodes = nodes
        size = 1
        while size < len(nodes):
            size *= 2
        self.size = size
        self.c, self.m, self.b = [_NONE] * (2 * size), [_NONE] * (2 * size), [_NONE] * (2 * size)
        for i, node in enumerate(nodes):
            self._set_leaf(i, node)
        c, m, b = self.c, self.m, self.b
        for p in range(size - 1, 0, -1):
            c[p], m[p], b[p] = max(c[2 * p], c[2 * p + 1]), max(m[2 * p], m[2 * p + 1]), max(b[2 * p], b[2 * p + 1])

    def _set_leaf(self, i: int, node: NodeCapacity) -> None:
        used, p = node.used, self.size + i
        self.c[p] = node.cpu_cores - used["cpu_cores"]
        self.m[p] = node.memory_mb - used["memory_mb"]
        self.b[p] = node.bandwidth_mbps - used["bandwidth_mbps"]

    def update(self, i: int) -> None:
        """Node i's free capacity changed: refresh its leaf and the maxima above it."""
        self._set_leaf(i, self.nodes[i])
        c, m, b = self.c, self.m, self.b
        p = (self.size + i) // 2
        while p:
            nc, nm, nb = max(c[2 * p], c[2 * p + 1]), max(m[2 * p], m[2 * p + 1]), max(b[2 * p], b[2 * p + 1])
            if nc == c[p] and nm == m[p] and nb == b[p]:
                break  # the ancestors' maxima cannot change either
            c[p], m[p], b[p] = nc, nm, nb
            p //= 2

    def first(self, lo: int, hi: int, need: tuple[float, float, float], accept) -> int:
        """The first index in lo..hi-1 whose node has room for `need` and passes `accept`, or -1."""
        if lo >= hi:
            return -1
        return self._first(1, 0, self.size, lo, hi, need[0], need[1], need[2], accept)

    def _first(self, p, plo, phi, lo, hi, c, m, b, accept) -> int:
        if self.c[p] < c or self.m[p] < m or self.b[p] < b:
            return -1
        if phi - plo == 1:
            return plo if accept(self.nodes[plo]) else -1
        mid = (plo + phi) // 2
        if lo < mid:
            found = self._first(2 * p, plo, mid, lo, hi, c, m, b, accept)
            if found >= 0:
                return found
        if hi > mid:
            return self._first(2 * p + 1, mid, phi, lo, hi, c, m, b, accept)
        return -1

    def collect(self, lo: int, hi: int, need: tuple[float, float, float], accept, out: list) -> None:
        """Append to `out`, in order, every node in lo..hi-1 with room for `need` that passes `accept`."""
        if lo < hi:
            self._collect(1, 0, self.size, lo, hi, need[0], need[1], need[2], accept, out)

    def _collect(self, p, plo, phi, lo, hi, c, m, b, accept, out) -> None:
        if self.c[p] < c or self.m[p] < m or self.b[p] < b:
            return
        if phi - plo == 1:
            if accept(self.nodes[plo]):
                out.append(self.nodes[plo])
            return
        mid = (plo + phi) // 2
        if lo < mid:
            self._collect(2 * p, plo, mid, lo, hi, c, m, b, accept, out)
        if hi > mid:
            self._collect(2 * p + 1, mid, phi, lo, hi, c, m, b, accept, out)


def _need(inst: InstanceRequest) -> tuple[float, float, float]:
    return inst.cpu_cores - EPSILON, inst.memory_mb - EPSILON, inst.bandwidth_mbps - EPSILON


class Topology:
    """Computing nodes by id, server, rack and pod, with free-capacity indexes per node kind.

    Server ids must be unique across the cluster, and rack ids too: a server's nodes share one
    rack and pod, and a rack lies in one pod (ValueError otherwise).
    """

    def __init__(self, nodes: Sequence[NodeCapacity]):
        rack_of_server: dict[Hashable, Hashable] = {}
        pod_of_rack: dict[Hashable, Hashable] = {}
        pod_rank: dict[Hashable, int] = {}
        seen: set[Hashable] = set()
        for node in nodes:
            if node.id in seen:
                raise ValueError(f"node id {node.id!r} appears twice")
            seen.add(node.id)
            if rack_of_server.setdefault(node.server, node.rack) != node.rack:
                raise ValueError(f"server {node.server!r} has nodes in racks {rack_of_server[node.server]!r} "
                                 f"and {node.rack!r}")
            if pod_of_rack.setdefault(node.rack, node.pod) != node.pod:
                raise ValueError(f"rack {node.rack!r} has nodes in pods {pod_of_rack[node.rack]!r} and {node.pod!r}")
            pod_rank.setdefault(node.pod, len(pod_rank))
        rack_rank = {rack: i for i, rack in enumerate(pod_of_rack)}
        server_rank = {server: i for i, server in enumerate(rack_of_server)}
        order = sorted(range(len(nodes)), key=lambda i: (
            pod_rank[nodes[i].pod], rack_rank[nodes[i].rack], server_rank[nodes[i].server], i))

        self.nodes: list[NodeCapacity] = [nodes[i] for i in order]
        self._position = {node.id: i for i, node in enumerate(self.nodes)}
        self._by_id = {node.id: node for node in self.nodes}
        self.pods: list[Hashable] = list(pod_rank)
        self._by_server: dict[Hashable, list[NodeCapacity]] = {}
        self._servers_of_rack: dict[Hashable, list[Hashable]] = {}
        self._racks_of_pod: dict[Hashable, list[Hashable]] = {pod: [] for pod in self.pods}
        for node in self.nodes:
            if node.server not in self._by_server:
                self._by_server[node.server] = []
                if node.rack not in self._servers_of_rack:
                    self._servers_of_rack[node.rack] = []
                    self._racks_of_pod[node.pod].append(node.rack)
                self._servers_of_rack[node.rack].append(node.server)
            self._by_server[node.server].append(node)

        by_kind: dict[str, list[NodeCapacity]] = {}
        for node in self.nodes:
            by_kind.setdefault(node.kind, []).append(node)
        self.kinds: tuple[str, ...] = tuple(by_kind)
        self._trees = {kind: _FreeTree(members) for kind, members in by_kind.items()}
        self._slot: dict[Hashable, tuple[_FreeTree, int]] = {}
        # Per kind: rack -> (lo, hi) and pod -> (lo, hi) in that kind's tree.
        self._rack_span: dict[str, dict[Hashable, tuple[int, int]]] = {}
        self._pod_span: dict[str, dict[Hashable, tuple[int, int]]] = {}
        for kind, members in by_kind.items():
            racks, pods = {}, {}
            for i, node in enumerate(members):
                self._slot[node.id] = (self._trees[kind], i)
                racks[node.rack] = (racks.get(node.rack, (i,))[0], i + 1)
                pods[node.pod] = (pods.get(node.pod, (i,))[0], i + 1)
            self._rack_span[kind], self._pod_span[kind] = racks, pods

    # --- lookups --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.nodes)

    def get(self, node_id: Hashable) -> NodeCapacity | None:
        return self._by_id.get(node_id)

    def node(self, node_id: Hashable) -> NodeCapacity:
        return self._by_id[node_id]

    def position(self, node: NodeCapacity) -> int:
        """The node's rank in topology order."""
        return self._position[node.id]

    def server_nodes(self, server: Hashable) -> list[NodeCapacity]:
        return self._by_server[server]

    def kind_nodes(self, kind: str) -> list[NodeCapacity]:
        """The nodes of one kind, in topology order (empty if there are none)."""
        tree = self._trees.get(kind)
        return tree.nodes if tree else []

    def allowed_kinds(self, inst: InstanceRequest) -> tuple[str, ...]:
        """The node kinds present in the cluster that `inst` may run on."""
        if inst.platform == "any":
            return self.kinds
        return (inst.platform,) if inst.platform in self._trees else ()

    # --- reservations -----------------------------------------------------------------------------

    def reserve(self, node: NodeCapacity, inst: InstanceRequest) -> None:
        """Reserve `inst` on `node` and keep the free-capacity index right."""
        node.reserve(inst)
        tree, i = self._slot[node.id]
        tree.update(i)

    def release(self, node: NodeCapacity, inst: InstanceRequest) -> None:
        node.release(inst)
        tree, i = self._slot[node.id]
        tree.update(i)

    # --- searches ---------------------------------------------------------------------------------

    def first_of_kind(self, inst: InstanceRequest, kind: str, accept: Callable[[NodeCapacity], bool]
                      ) -> NodeCapacity | None:
        """The first node of `kind`, in topology order, with room for `inst` that `accept(node)` allows;
        None when `inst`'s platform excludes `kind` or no such node exists."""
        tree = self._trees.get(kind)
        if tree is None or not (inst.platform == "any" or inst.platform == kind):
            return None
        i = tree.first(0, len(tree.nodes), _need(inst), accept)
        return tree.nodes[i] if i >= 0 else None

    def all_of_kind(self, inst: InstanceRequest, kind: str, accept: Callable[[NodeCapacity], bool]
                    ) -> list[NodeCapacity]:
        """Every node of `kind` with room for `inst` that `accept(node)` allows, in topology order."""
        out: list[NodeCapacity] = []
        tree = self._trees.get(kind)
        if tree is not None and (inst.platform == "any" or inst.platform == kind):
            tree.collect(0, len(tree.nodes), _need(inst), accept, out)
        return out

    def first_fit(self, inst: InstanceRequest, blocked: Container[Hashable] = (), avoid: Hashable = None, *,
                  kinds: Iterable[str] | None = None) -> NodeCapacity | None:
        """The first node in topology order that can host `inst` (platform, room, server not in `blocked`),
        other than node `avoid`. With `kinds`, the first node of the first kind in that order that has one."""

        def accept(node):
            return node.server not in blocked and node.id != avoid

        best = None
        for kind in (self.allowed_kinds(inst) if kinds is None else kinds):
            node = self.first_of_kind(inst, kind, accept)
            if node is None:
                continue
            if kinds is not None:
                return node
            if best is None or self._position[node.id] < self._position[best.id]:
                best = node
        return best

    def feasible(self, inst: InstanceRequest, blocked: Container[Hashable] = (),
                 avoid: Hashable = None) -> list[NodeCapacity]:
        """Every node that can host `inst`, kind by kind. Touches only nodes with room (and the index)."""

        def accept(node):
            return node.server not in blocked and node.id != avoid

        return [node for kind in self.allowed_kinds(inst) for node in self.all_of_kind(inst, kind, accept)]

    def levels(self, node: NodeCapacity, demand: InstanceRequest | None = None, *,
               blocked: Container[Hashable] = (), avoid: Hashable = None
               ) -> Iterator[tuple[int, Iterable[NodeCapacity]]]:
        """The six communication levels around `node`, nearest first: (LEVEL_*, candidates).

        0 `node` itself; 1 the other nodes of its server (PCIe); 2 SmartNICs of the rack's other
        servers; 3 hosts (every other kind) of the rack's other servers; 4 nodes in the pod's other
        racks; 5 nodes in other pods. Candidates come in topology order.

        Without `demand` every node of each level is listed (levels 4 and 5 lazily, rack by rack).
        With `demand` only nodes that can host it (platform, room, server not in `blocked`, not node
        `avoid`), and at levels 4 and 5, where every rack is equally far, only those of the first
        rack (topology order) that has room, per node kind: the index finds that rack without
        visiting full ones, so a call never lists more than a few racks' nodes.
        """
        if demand is None:
            yield from self._all_levels(node)
            return
        inst, need = demand, _need(demand)
        kinds = self.allowed_kinds(inst)
        server = node.server

        def ok(n):
            return can_host(inst, n, blocked) and n.id != avoid

        yield LEVEL_SAME_NODE, [node] if ok(node) else []
        yield LEVEL_SAME_SERVER, ([n for n in self._by_server[server] if n is not node and ok(n)]
                                  if server not in blocked else [])

        def in_rack(n):
            return n.server != server and n.server not in blocked and n.id != avoid

        for level, rack_kinds in ((LEVEL_RACK_SMARTNIC, [k for k in kinds if k == SMARTNIC]),
                                  (LEVEL_RACK_HOST, [k for k in kinds if k != SMARTNIC])):
            out: list[NodeCapacity] = []
            for kind in rack_kinds:
                span = self._rack_span[kind].get(node.rack)
                if span:
                    self._trees[kind].collect(span[0], span[1], need, in_rack, out)
            yield level, out

        def elsewhere(n):
            return n.server not in blocked and n.id != avoid

        for level in (LEVEL_POD, LEVEL_REMOTE):
            out = []
            for kind in kinds:
                tree, n_kind = self._trees[kind], len(self._trees[kind].nodes)
                if level == LEVEL_POD:
                    outer = self._pod_span[kind].get(node.pod)
                    inner = self._rack_span[kind].get(node.rack)
                else:
                    outer, inner = (0, n_kind), self._pod_span[kind].get(node.pod)
                if outer is None:
                    continue
                if inner is None:  # this kind has no node in the excluded rack / pod
                    inner = (outer[0], outer[0])
                i = tree.first(outer[0], inner[0], need, elsewhere)
                if i < 0:
                    i = tree.first(inner[1], outer[1], need, elsewhere)
                if i >= 0:
                    lo, hi = self._rack_span[kind][tree.nodes[i].rack]
                    tree.collect(max(lo, i), hi, need, elsewhere, out)
            yield level, out

    def _all_levels(self, node: NodeCapacity) -> Iterator[tuple[int, Iterable[NodeCapacity]]]:
        server, rack, pod = node.server, node.rack, node.pod
        yield LEVEL_SAME_NODE, [node]
        yield LEVEL_SAME_SERVER, [n for n in self._by_server[server] if n is not node]
        neighbours = [n for s in self._servers_of_rack[rack] if s != server for n in self._by_server[s]]
        yield LEVEL_RACK_SMARTNIC, [n for n in neighbours if n.kind == SMARTNIC]
        yield LEVEL_RACK_HOST, [n for n in neighbours if n.kind != SMARTNIC]
        yield LEVEL_POD, (n for r in self._racks_of_pod[pod] if r != rack
                          for s in self._servers_of_rack[r] for n in self._by_server[s])
        yield LEVEL_REMOTE, (n for p in self.pods if p != pod for r in self._racks_of_pod[p]
                             for s in self._servers_of_rack[r] for n in self._by_server[s])
