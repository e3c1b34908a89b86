"""First-fit placement: each instance on the first computing node, in topology order, that can take it.

The baseline that ignores communication: rules as in `constraints` (capacity including load
already placed, platform pinning, replicas of a shard on distinct servers, optional
anti-affinity). The topology's free-capacity index finds the first node with room without
walking past full ones, so 10,000 instances on 50,000 nodes take near-linear time.
"""

import time
from collections.abc import Hashable, Mapping, Sequence

from e3.placement.constraints import PlacementState, Progress, full_assignments, reserve_fixed, to_place
from e3.placement.model import InstanceKey, NodeCapacity, Placement, PlacementProblem, ProgressFn
from e3.placement.topology import Topology


def first_fit(problem: PlacementProblem, nodes: Sequence[NodeCapacity], *, progress: ProgressFn | None = None,
              progress_every: int = 50, avoid: Mapping[InstanceKey, Hashable] | None = None) -> Placement:
    """Place every instance of `problem` or raise PlacementError naming the instance and what ran out.

    `problem.fixed` instances are reserved first and stay put. `avoid` (used by re-placement)
    maps instance keys to a node to keep them off when any other node can take them.
    `nodes` are reserved in place; pass copies (`copy_nodes`) to keep them. Deterministic.
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
        node = topology.first_fit(inst, blocked, avoid.get(inst.key))
        if node is None and inst.key in avoid:
            node = topology.first_fit(inst, blocked)
        if node is None:
            raise state.explain(inst, topology.nodes)
        topology.reserve(node, inst)
        state.add(inst, node)
        ticker.tick()
    return Placement(algorithm="first_fit", assignments=full_assignments(problem, state),
                     runtime_ms=(time.perf_counter() - started) * 1000)
