"""The greedy placement loop the simple algorithms share (first-fit, random), and the reservation of
instances already placed, on the cluster's topology index."""

import time
from collections.abc import Callable, Container, Hashable, Mapping, Sequence

from e3.placement.constraints import PlacementState, Progress, full_assignments, to_place
from e3.placement.model import InstanceKey, InstanceRequest, NodeCapacity, Placement, PlacementProblem, ProgressFn
from e3.placement.topology import Topology


def reserve_fixed(problem: PlacementProblem, topology: Topology, state: PlacementState) -> None:
    """Reserve and record `problem.fixed`: instances already placed, which no algorithm moves.

    Their load is not in `NodeCapacity.used` yet (the problem's own instances are reserved by the
    algorithm), and they are not re-checked: they are where they are.
    """
    if not problem.fixed:
        return
    by_key = {inst.key: inst for inst in problem.instances}
    for key, node_id in problem.fixed.items():
        inst = by_key.get(key)
        if inst is None:
            raise ValueError(f"fixed instance {key} is not one of the problem's instances")
        node = topology.get(node_id)
        if node is None:
            raise ValueError(f"fixed instance {inst.describe()} is on node {node_id!r}, which is not in the cluster")
        topology.reserve(node, inst)
        state.add(inst, node)



ChooseFn = Callable[[Topology, InstanceRequest, Container[Hashable], Hashable | None], NodeCapacity | None]


def place_one_by_one(problem: PlacementProblem, nodes: Sequence[NodeCapacity], choose: ChooseFn, *, algorithm: str,
                     progress: ProgressFn | None, progress_every: int,
                     avoid: Mapping[InstanceKey, Hashable] | None, details: dict | None = None) -> Placement:
    """The loop of the greedy algorithms: fixed instances first, then each pending one where `choose` says.

    `choose(topology, inst, blocked_servers, avoid_node)` returns a node that can host the
    instance, or None. A node to avoid (re-placement) is given up when nothing else has room.
    """
    started = time.perf_counter()
    topology = Topology(nodes)
    state = PlacementState(problem.anti_affinity)
    reserve_fixed(problem, topology, state)
    pending = to_place(problem)
    ticker = Progress(progress, len(pending), progress_every)
    avoid = avoid or {}
    for inst in pending:
        blocked = state.blocked(inst)
        node = choose(topology, inst, blocked, avoid.get(inst.key))
        if node is None and inst.key in avoid:
            node = choose(topology, inst, blocked, None)
        if node is None:
            raise state.explain(inst, topology.nodes)
        topology.reserve(node, inst)
        state.add(inst, node)
        ticker.tick()
    return Placement(algorithm=algorithm, assignments=full_assignments(problem, state),
                     runtime_ms=(time.perf_counter() - started) * 1000, details=details or {})
