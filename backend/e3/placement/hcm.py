"""HCM, the hierarchical communication-aware placement of the E3 paper (§3.3, Algorithm 1).

MS_DAG_TRAVERSE walks the DAG breadth-first from its sources. A microservice that is not
deployed yet (`get_deployed_node`) and has no placed parent is placed by `find_first_fit`;
each descendant W of a placed V is placed by MS_PLACE(W, N, T): the levels of
`Topology.levels(N)`, nearest first (same node, same server over PCIe, SmartNICs then hosts of
the rack's other servers, the pod's other racks, other pods), taking `find_best_fit` of the
first level with a node that can host W, and `find_first_fit` over the whole cluster when no
level has one. At levels 4 and 5, where every rack is equally far, a level's candidates are
those of the first rack (topology order) with room, per node kind: that keeps a search to a few
racks' nodes on a 10,000-server cluster, and the kind preference below still holds across racks.

Instances. A DAG node is expanded into shards, each a primary and its backups, so Algorithm 1
is applied per instance:

- a source's primaries go to `find_first_fit`;
- a child's shard k (k-th in shard order) is placed by MS_PLACE around the node of its parent's
  shard k mod n (n = the parent's shard count), i.e. around that shard's primary: shards of a
  pipeline line up with the shards that feed them;
- every backup is placed by MS_PLACE around its own primary's node. The fault-domain rule rules
  out levels 0 and 1 (the primary's server), so a backup lands at level 2 or further: on a
  SmartNIC or host of the same rack when one has room;
- a child with several parents is placed once, around the first parent the BFS reaches it
  from, and enqueued once (Algorithm 1 taken literally would place it again for every parent);
- DAG nodes the BFS cannot reach (edges forming a cycle) are treated as sources afterwards;
- instances in `problem.fixed` are deployed already: they are not moved, and serve as the
  node N their children are placed around.

find_best_fit, among the candidates of one level, picks the smallest
(kind rank, free cores after placing, outstanding requests, utilisation, topology position):
the kind rank is 0 on the kind where the service is more energy-efficient (catalogue Table 1
requests per joule: the SmartNIC when `suits_smartnic`, otherwise the host) and 1 on the
other; then the tightest fit, which packs nodes and leaves whole nodes free for large
instances; then the runtime statistics agents report (lower is better); then topology order,
so placements are deterministic.

find_first_fit is the first node in topology order that can host the instance, on the kind
where the service is more energy-efficient if any such node can, else on the other kind. The
paper lets it return "a node closest to the constraints" when nothing fits; E3 does not
overcommit, so it raises PlacementError instead.

Efficient kind across PCIe. Service Fabric's constraints include each microservice's
behaviour, and the paper moves services off the SmartNIC when they run badly there (§3.4,
§5.3: top_ranker, spike, api_gateway). So when the parent's node (level 0) is of the kind on
which the child serves fewer requests per joule (Table 1) and a node of the child's efficient
kind on the same server (level 1, one PCIe hop) can take it, the child goes there: sql's
children ema, spike and recommend land on the same server's SmartNIC, count's child bayes on
the same server's host. Otherwise level 0 keeps the child, as Algorithm 1 has it.

Load-aware roots. The paper's find_first_fit weighs "resource and runtime statistics", and the
Service Fabric constraints include each microservice's behaviour (request rate x execution
time). Reservations alone let all shards of a source stack on the first node with room, and
their children follow them there (level 0), so one node carries the whole DAG's request load
while the others idle, which lowers the knee. So a root's primary shard (a source, or a DAG node
the BFS could not reach) skips nodes that already hold a primary shard of the same DAG node
(sibling shards split its requests: stacking them stacks their load) and takes find_first_fit
among the rest. When every node that can host it holds a sibling, it takes the one where its
expected load after placing is lowest, on the efficient kind first, ties in topology order. The
expected load is what HCM has placed on the node in this run: each primary adds its Table 1
core-seconds per request on the node's platform (`cost_model.calibration_platform`), divided by
its DAG node's shard count (shards split the requests; every DAG node is taken to see the
entry rate) and by the node's cores. Backups carry no load. Children keep Algorithm 1 as
above: they follow their parent's shard, nearest level first, so spread roots spread the
pipelines they feed, each pipeline shard staying co-located.
"""

import dataclasses
import inspect
import time
from collections import deque
from collections.abc import Hashable, Iterable, Mapping, Sequence
from functools import cache

from e3 import catalog
from e3.placement.cost_model import calibration_platform
from e3.placement.constraints import PlacementState, Progress, full_assignments, to_place
from e3.placement.greedy import reserve_fixed
from e3.placement.model import (LEVEL_SAME_NODE, LEVELS, InstanceKey, InstanceRequest, NodeCapacity, Placement, PlacementProblem,
                                ProgressFn)
from e3.placement.topology import Topology


@cache
def preferred_kind(service: str) -> str | None:
    """The node kind where `service` serves more requests per joule; None for a service not in the catalogue."""
    svc = catalog.service_types().get(service)
    if svc is None:
        return None
    return "smartnic" if svc.suits_smartnic else "host"


def find_best_fit(inst: InstanceRequest, candidates: Iterable[NodeCapacity], topology: Topology
                  ) -> NodeCapacity | None:
    """The best of `candidates` (all able to host `inst`) by the rule in the module docstring, or None."""
    preferred = preferred_kind(inst.service)
    position = topology.position

    def rank(node: NodeCapacity):
        after = round(node.cpu_cores - node.used["cpu_cores"] - inst.cpu_cores, 6)  # ties despite float sums
        return (node.kind != preferred, after, node.outstanding_requests, node.utilisation, position(node))

    return min(candidates, key=rank, default=None)


def _kind_order(inst: InstanceRequest, topology: Topology) -> tuple[str, ...]:
    kinds = topology.allowed_kinds(inst)
    preferred = preferred_kind(inst.service)
    if preferred in kinds:
        kinds = (preferred,) + tuple(k for k in kinds if k != preferred)
    return kinds


def find_first_fit(inst: InstanceRequest, topology: Topology, blocked, avoid: Hashable = None
                   ) -> NodeCapacity | None:
    """The first node in topology order that can host `inst`, on its more energy-efficient kind first."""
    return topology.first_fit(inst, blocked, avoid, kinds=_kind_order(inst, topology))


@cache
def _core_s(service: str, platform: str) -> float:
    """Table 1 core-seconds per request of `service` on `platform`; 0 when the catalogue has no figure."""
    svc = catalog.service_types().get(service)
    c = svc.calibration.get(platform) if svc is not None else None
    return c.cores / c.rps if c is not None and c.rps > 0 else 0.0


def expected_load(inst: InstanceRequest, node: NodeCapacity, shards: int) -> float:
    """Load per entry request/s that primary `inst` adds to `node` (Table 1 core time / shards / cores)."""
    if inst.replica:
        return 0.0
    return _core_s(inst.service, calibration_platform(node)) / max(shards, 1) / max(node.cpu_cores, 1e-9)


class _Hcm:
    def __init__(self, problem: PlacementProblem, topology: Topology, state: PlacementState, ticker: Progress,
                 avoid: Mapping[InstanceKey, Hashable]):
        self.topology, self.state, self.ticker, self.avoid = topology, state, ticker, avoid
        self.at_level = dict.fromkeys(LEVELS, 0)
        self.first_fits = 0
        # dag node -> [[primary, backup 1, ...] per shard], shards and replicas in order
        shards: dict[str, dict[int, list[InstanceRequest]]] = {}
        for inst in problem.instances:
            shards.setdefault(inst.dag_node, {}).setdefault(inst.shard, []).append(inst)
        self.shards = {v: [sorted(s[k], key=lambda i: i.replica) for k in sorted(s)] for v, s in shards.items()}
        self.children: dict[str, list[str]] = {v: [] for v in self.shards}
        for a, b in problem.edges:
            if a in self.shards and b in self.shards and a != b and b not in self.children[a]:
                self.children[a].append(b)
        self.sources = [v for v in problem.sources() if v in self.shards]
        self.load: dict[Hashable, float] = {}  # node id -> expected load placed in this run
        self.sibling_nodes: dict[str, set[Hashable]] = {}  # dag node -> nodes holding one of its primaries
        for inst in problem.instances:  # deployed already: their load counts too
            node_id = problem.fixed.get(inst.key)
            node = topology.get(node_id) if node_id is not None else None
            if node is not None:
                self.add_load(inst, node)

    def node_of(self, inst: InstanceRequest) -> NodeCapacity | None:
        """get_deployed_node, per instance."""
        node_id = self.state.assignments.get(inst.key)
        return None if node_id is None else self.topology.node(node_id)

    def traverse(self) -> None:
        """MS_DAG_TRAVERSE from the sources, then from any DAG node the BFS did not reach."""
        visited: set[str] = set()
        for root in self.sources + list(self.shards):
            if root in visited:
                continue
            visited.add(root)
            queue = deque([root])
            while queue:
                v = queue.popleft()
                self.deploy(v, parent=None)  # lines 8-11: places only what is not deployed yet
                for w in self.children[v]:
                    if w not in visited:
                        visited.add(w)
                        self.deploy(w, parent=v)  # lines 13-14
                        queue.append(w)

    def deploy(self, v: str, parent: str | None) -> None:
        """Place v's undeployed instances: around the parent's shards (MS_PLACE) or, for a root, first fit."""
        anchors = [self.node_of(shard[0]) for shard in self.shards[parent]] if parent else None
        for k, replicas in enumerate(self.shards[v]):
            for inst in replicas:
                if inst.key in self.state.assignments:
                    continue
                primary = self.node_of(replicas[0])
                if primary is not None:  # a backup: around its primary
                    self.place(inst, primary)
                elif anchors:
                    self.place(inst, anchors[k % len(anchors)])
                else:
                    self.place(inst, None)

    def place(self, inst: InstanceRequest, near: NodeCapacity | None) -> None:
        avoid = self.avoid.get(inst.key)
        node = self.search(inst, near, avoid)
        if node is None and avoid is not None:
            node = self.search(inst, near, None)
        if node is None:
            raise self.state.explain(inst, self.topology.nodes)
        self.topology.reserve(node, inst)
        self.state.add(inst, node)
        self.add_load(inst, node)
        self.ticker.tick()

    def add_load(self, inst: InstanceRequest, node: NodeCapacity) -> None:
        if not inst.replica:
            self.load[node.id] = self.load.get(node.id, 0.0) + expected_load(inst, node, len(self.shards[inst.dag_node]))
            self.sibling_nodes.setdefault(inst.dag_node, set()).add(node.id)

    def root_fit(self, inst: InstanceRequest, blocked, avoid: Hashable) -> NodeCapacity | None:
        """find_first_fit for a root's primary, load-aware (module docstring)."""
        siblings = self.sibling_nodes.get(inst.dag_node)
        if not siblings:
            return find_first_fit(inst, self.topology, blocked, avoid)
        shards, position = len(self.shards[inst.dag_node]), self.topology.position

        def free(node):  # Topology.first_fit's filter, passing over siblings too
            return node.server not in blocked and node.id != avoid and node.id not in siblings

        def sibling(node):
            return node.server not in blocked and node.id != avoid and node.id in siblings

        for kind in _kind_order(inst, self.topology):  # the efficient kind first, as find_first_fit
            node = self.topology.first_of_kind(inst, kind, free)
            if node is not None:
                return node
            held = self.topology.all_of_kind(inst, kind, sibling)  # every node with room holds a sibling: few
            if held:
                return min(held, key=lambda n: (round(self.load.get(n.id, 0.0) + expected_load(inst, n, shards), 12),
                                                position(n)))
        return None

    def search(self, inst: InstanceRequest, near: NodeCapacity | None, avoid: Hashable) -> NodeCapacity | None:
        blocked = self.state.blocked(inst)
        if near is not None:  # MS_PLACE
            levels = self.topology.levels(near, inst, blocked=blocked, avoid=avoid)
            for level, candidates in levels:
                node = find_best_fit(inst, candidates, self.topology)
                if node is None:
                    continue
                if level == LEVEL_SAME_NODE and node.kind != preferred_kind(inst.service):
                    # Per-microservice behaviour: the same server's node of the service's efficient
                    # kind, one PCIe hop away, beats its parent's node of the other kind.
                    level, candidates = next(levels, (level, ()))
                    node = find_best_fit(inst, (n for n in candidates if n.kind == preferred_kind(inst.service)),
                                         self.topology) or node
                    level = level if node.server == near.server and node.id != near.id else LEVEL_SAME_NODE
                self.at_level[level] += 1
                return node
        if near is None and not inst.replica:
            node = self.root_fit(inst, blocked, avoid)
        else:
            node = find_first_fit(inst, self.topology, blocked, avoid)
        if node is not None:
            self.first_fits += 1
        return node


def hcm(problem: PlacementProblem, nodes: Sequence[NodeCapacity], *, progress: ProgressFn | None = None,
        progress_every: int = 50, avoid: Mapping[InstanceKey, Hashable] | None = None) -> Placement:
    """Place every instance of `problem` by HCM, or raise PlacementError naming the instance and what ran out.

    `problem.fixed` instances are reserved first and stay put. `avoid` (used by re-placement)
    maps instance keys to a node to keep them off when any other node can take them. `nodes`
    are reserved in place; pass copies (`copy_nodes`) to keep them. Deterministic.
    `details` counts the instances placed at each level and by first fit.
    """
    started = time.perf_counter()
    topology = Topology(nodes)
    state = PlacementState(problem.anti_affinity)
    reserve_fixed(problem, topology, state)
    run = _Hcm(problem, topology, state, Progress(progress, len(to_place(problem)), progress_every), avoid or {})
    run.traverse()
    return Placement(algorithm="hcm", assignments=full_assignments(problem, state),
                     runtime_ms=(time.perf_counter() - started) * 1000,
                     details={"placed_at_level": {str(level): n for level, n in run.at_level.items()},
                              "first_fit": run.first_fits})


def replace_instances(problem: PlacementProblem, nodes: Sequence[NodeCapacity], keys: Iterable[InstanceKey], *,
                      algorithm: str = "hcm", **options) -> Placement:
    """Place the instances `keys` again (failover, migration); every other instance in `problem.fixed` stays.

    `problem.fixed` holds where instances are now, `keys` included; as for any algorithm, their
    load is not in `nodes`' `used`. The listed instances leave their nodes and are placed by
    `algorithm` (a key of `e3.placement.ALGORITHMS`), kept off the node they left whenever another
    node can take them (when the algorithm accepts `avoid`; a node that is down is simply left
    out of `nodes`). Returns every instance's node; `details["moved"]` lists the listed ones.
    """
    from e3.placement import ALGORITHMS  # the registry imports this module

    keys = list(dict.fromkeys(keys))
    known = {inst.key for inst in problem.instances}
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise ValueError(f"not instances of this problem: {unknown}")
    left = {k: problem.fixed[k] for k in keys if k in problem.fixed}
    fixed = {k: n for k, n in problem.fixed.items() if k not in left}
    place = ALGORITHMS[algorithm]
    if "avoid" in inspect.signature(place).parameters:
        options["avoid"] = left
    placement = place(dataclasses.replace(problem, fixed=fixed), nodes, **options)
    placement.details["moved"] = [
        {"dag_node": k[0], "shard": k[1], "replica": k[2], "from": left.get(k), "to": placement.assignments[k]}
        for k in keys]
    return placement
