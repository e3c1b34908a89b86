"""Placement: which computing node each microservice instance runs on. Pure: no database, no web framework.

A DAG spec becomes a `PlacementProblem` (`problem_from_document`): its nodes expanded into
shard replicas with their catalogue reservations, plus its edges. Every algorithm in
`ALGORITHMS` takes the same arguments (see `e3.placement.model`):

    placement = ALGORITHMS[name](problem, nodes, progress=..., **options)

and reserves on `nodes`, shares the rules in `e3.placement.constraints`, and finds nodes through
the indexes of `e3.placement.topology`.

- `hcm`: the paper's hierarchical communication-aware placement (Algorithm 1);
- `annealing`: Service Fabric-style simulated annealing (balance, interference) (baseline);
- `ilp`: an integer program solved by HiGHS under a time cap (baseline);
- `first_fit`: the first node in topology order with room (baseline);
- `random`: a uniformly random feasible node, seeded (baseline).

Re-placing some instances (failover, migration) is `hcm.replace_instances`. To add an
algorithm, import it here and add it to `ALGORITHMS`.
"""

import time
from collections.abc import Sequence

from e3 import catalog
from e3.placement import annealing as _annealing
from e3.placement import first_fit as _first_fit
from e3.placement import hcm as _hcm
from e3.placement import ilp as _ilp
from e3.placement import random_placement as _random
from e3.placement.instances import DagNodeDemand, expand_instances
from e3.placement.model import NodeCapacity, Placement, PlacementProblem, ProgressFn
from e3.schemas.dag import ApplicationSpec

ALGORITHMS = {
    "hcm": _hcm.hcm,
    "annealing": _annealing.annealing,
    "ilp": _ilp.ilp,
    "first_fit": _first_fit.first_fit,
    "random": _random.random_placement,
}

# What each algorithm optimises, in a line: none of them optimises the cost model's joules or latency
# directly, which is why a placement "optimal" for its own objective can score below another one.
OBJECTIVES = {
    "hcm": "keeps communicating microservices close: each instance on the nearest level with room to the one "
           "that calls it (same node, same server over PCIe, same rack, ...), first fit within a level",
    "annealing": "Service Fabric's cost: spreads load evenly and avoids instances sharing a node (balance and "
                 "interference), by simulated annealing from first-fit",
    "ilp": "fewest instances sharing a node (interference, weighted highest), then least communication cost, "
           "solved by HiGHS within its time cap",
    "first_fit": "none: the first node in topology order with room",
    "random": "none: a random node with room (seeded)",
}


def optimality(optimal: bool | None) -> str:
    """In words, what `optimal` (Placement.optimal) claims, and what it does not."""
    if optimal is None:
        return "a heuristic: no claim of optimality"
    if optimal:
        return "optimal for its own objective (not for joules or latency)"
    return "stopped at its time cap or solved an approximation: the best placement found so far"


def problem_from_document(document: dict, *, anti_affinity: bool = False) -> PlacementProblem:
    """The placement problem of a DAG spec document validated before (`ApplicationSpec.from_document`).

    Fields a non-canonical document leaves out take the spec's defaults.
    """
    spec = ApplicationSpec.from_document(document)
    demands = [DagNodeDemand(id=n.id, service=n.service, shards=n.shards, replicas=n.replicas, platform=n.platform,
                             request_bytes=n.request_bytes)
               for n in spec.nodes]
    return PlacementProblem(instances=expand_instances(demands, catalog.service_types()),
                            edges=[(e.from_, e.to) for e in spec.edges], anti_affinity=anti_affinity)


def run(name: str, problem: PlacementProblem, nodes: Sequence[NodeCapacity], progress: ProgressFn | None = None,
        **options) -> Placement:
    """Run algorithm `name` and stamp its own running time (ms) on the placement."""
    started = time.perf_counter()
    placement = ALGORITHMS[name](problem, nodes, progress=progress, **options)
    placement.runtime_ms = (time.perf_counter() - started) * 1000
    return placement


def algorithm_options(name: str, *, seed: int = 0, ilp_time_limit_s: float = 10.0) -> dict:
    """The options each algorithm takes from a request: a seed for the randomised ones, the ILP's cap."""
    return {"annealing": {"seed": seed}, "random": {"seed": seed},
            "ilp": {"time_limit_s": ilp_time_limit_s}}.get(name, {})
