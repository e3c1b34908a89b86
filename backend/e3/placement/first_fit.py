"""First-fit placement: each instance on the first computing node, in topology order, that can take it.

The baseline that ignores communication: rules as in `constraints` (capacity including load
already placed, platform pinning, replicas of a shard on distinct servers, optional
anti-affinity). The topology's free-capacity index finds the first node with room without
walking past full ones, so 10,000 instances on 50,000 nodes take near-linear time.
"""

import dataclasses
from collections.abc import Hashable, Mapping, Sequence

from e3.placement.greedy import place_one_by_one
from e3.placement.model import InstanceKey, NodeCapacity, Placement, PlacementProblem, ProgressFn
from e3.placement.topology import Topology


def first_fit(problem: PlacementProblem, nodes: Sequence[NodeCapacity], *, progress: ProgressFn | None = None,
              progress_every: int = 50, avoid: Mapping[InstanceKey, Hashable] | None = None) -> Placement:
    """Place every instance of `problem` or raise PlacementError naming the instance and what ran out.

    `problem.fixed` instances are reserved first and stay put. `avoid` (used by re-placement)
    maps instance keys to a node to keep them off when any other node can take them.
    `nodes` are reserved in place; pass copies (`copy_nodes`) to keep them. Deterministic.
    """
    return place_one_by_one(problem, nodes, _first_with_room, algorithm="first_fit", progress=progress,
                            progress_every=progress_every, avoid=avoid)


def _first_with_room(topology: Topology, inst, blocked, avoid: Hashable | None) -> NodeCapacity | None:
    return topology.first_fit(inst, blocked, avoid)


def most_constrained_first(problem: PlacementProblem) -> PlacementProblem:
    """The same problem with its instances reordered for a one-by-one placement that fills up: those pinned to a
    platform first, then primaries before backups (a backup must also avoid its primary's server), otherwise in
    the given order. First-fit in the given order can fill the hosts with instances that could have gone anywhere
    and leave no room for one that must run there."""
    order = sorted(problem.instances, key=lambda inst: (inst.platform == "any", inst.replica > 0))
    return dataclasses.replace(problem, instances=order)

