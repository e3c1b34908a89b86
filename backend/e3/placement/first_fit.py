"""First-fit placement: each instance on the first computing node, in topology order, that can take it.

Constraints honoured: capacities (cores, memory, bandwidth) including load already placed,
platform pinning, and replicas of one shard in distinct fault domains (servers).
"""

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence

from e3.placement.model import (RESOURCE_UNITS, RESOURCES, InstanceRequest, NodeCapacity, Placement,
                                PlacementError)

ProgressFn = Callable[[int, int], None]  # (placed, total)


def first_fit(instances: Sequence[InstanceRequest], nodes: Sequence[NodeCapacity],
              progress: ProgressFn | None = None, progress_every: int = 50) -> Placement:
    """Place every instance or raise PlacementError naming the instance and the resource that ran out.

    `nodes` are reserved in place; the caller passes copies when it must keep them.
    """
    shard_domains: dict[tuple[str, int], set[Hashable]] = defaultdict(set)
    assignments = {}
    for done, inst in enumerate(instances, start=1):
        taken = shard_domains[inst.shard_key]
        node = next((n for n in nodes if inst.allows(n) and n.server not in taken and n.fits(inst)), None)
        if node is None:
            raise explain_no_fit(inst, nodes, taken)
        node.reserve(inst)
        taken.add(node.server)
        assignments[inst.key] = node.id
        if progress and (done % progress_every == 0 or done == len(instances)):
            progress(done, len(instances))
    return Placement(algorithm="first_fit", assignments=assignments)


def explain_no_fit(inst: InstanceRequest, nodes: Sequence[NodeCapacity], taken: set[Hashable]) -> PlacementError:
    """Say why nothing fits: no node of the platform, not enough fault domains, or which resource ran out."""
    where = "computing" if inst.platform == "any" else inst.platform
    on_platform = [n for n in nodes if inst.allows(n)]
    if not on_platform:
        return PlacementError(f"{inst.describe()}: the cluster has no {where} node that is up", inst, None)
    eligible = [n for n in on_platform if n.server not in taken]
    if not eligible:
        return PlacementError(
            f"{inst.describe()}: replicas of a shard need distinct servers, and every server with a "
            f"{where} node already holds a replica of this shard", inst, "fault_domains")
    short = [r for r in RESOURCES if max(n.free(r) for n in eligible) + 1e-9 < inst.resource(r)]
    if short:
        r = short[0]
        best = max(n.free(r) for n in eligible)
        unit = RESOURCE_UNITS[r]
        return PlacementError(
            f"{inst.describe()}: out of {r.removesuffix('_mb').removesuffix('_mbps').replace('_', ' ')}: "
            f"needs {inst.resource(r):g} {unit}, at most {max(best, 0):g} {unit} free on any {where} node "
            f"it may use", inst, r)
    return PlacementError(
        f"{inst.describe()}: no single {where} node has room for its cores, memory and bandwidth together",
        inst, "combined")
