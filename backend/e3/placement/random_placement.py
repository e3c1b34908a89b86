"""Random placement: each instance on a node drawn uniformly from those that can take it (a baseline).

Drawing a node of the instance's platform uniformly and redrawing until it can host the instance
(rejection sampling) is uniform over the feasible nodes and cheap while most nodes have room;
after `SAMPLES` misses the feasible nodes are listed from the free-capacity index and one is
chosen from the list, which is just as uniform. Seeded, so a seed reproduces a placement.
"""

import random
from collections.abc import Hashable, Mapping, Sequence

from e3.placement.constraints import can_host
from e3.placement.greedy import place_one_by_one
from e3.placement.model import InstanceKey, InstanceRequest, NodeCapacity, Placement, PlacementProblem, ProgressFn
from e3.placement.topology import Topology

SAMPLES = 16  # draws before listing the feasible nodes


def random_placement(problem: PlacementProblem, nodes: Sequence[NodeCapacity], *, progress: ProgressFn | None = None,
                     seed: int = 0, progress_every: int = 50,
                     avoid: Mapping[InstanceKey, Hashable] | None = None) -> Placement:
    """Place every instance on a uniformly random feasible node, or raise PlacementError.

    Same rules, `fixed` handling and `avoid` option as `first_fit`; `nodes` are reserved in place.
    """
    rng = random.Random(seed)
    return place_one_by_one(problem, nodes, lambda topology, inst, blocked, avoid_node:
                            _draw(rng, topology, inst, blocked, avoid_node), algorithm="random", progress=progress,
                            progress_every=progress_every, avoid=avoid, details={"seed": seed})


def _draw(rng: random.Random, topology: Topology, inst: InstanceRequest, blocked, avoid: Hashable
          ) -> NodeCapacity | None:
    pools = [topology.kind_nodes(kind) for kind in topology.allowed_kinds(inst)]
    total = sum(len(pool) for pool in pools)
    if not total:
        return None
    for _ in range(SAMPLES):
        i = rng.randrange(total)
        for pool in pools:
            if i < len(pool):
                node = pool[i]
                break
            i -= len(pool)
        if node.id != avoid and can_host(inst, node, blocked):
            return node
    candidates = topology.feasible(inst, blocked, avoid)
    return rng.choice(candidates) if candidates else None
