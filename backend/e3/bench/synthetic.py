"""Synthetic inputs for placement benchmarks: FatTree clusters and a mix of the paper's applications."""

import itertools
from dataclasses import replace

from e3 import catalog
from e3.placement import fattree, problem_from_document
from e3.placement.model import NodeCapacity, PlacementProblem


def fattree_nodes(servers: int, server_type: str = "type2-smartnic", servers_per_rack: int = 40,
                  racks_per_pod: int = 8) -> list[NodeCapacity]:
    """Computing nodes of a FatTree cluster, in topology order, as the cluster generator builds them."""
    return fattree.fattree_nodes(catalog.server_types()[server_type], servers, servers_per_rack, racks_per_pod)


def paper_mix_problem(instances: int) -> PlacementProblem:
    """Copies of the 8 paper applications, in turn, until `instances` instances (the last copy cut short)."""
    merged, edges = [], []
    for copy_no, name in enumerate(itertools.cycle(catalog.template_names())):
        problem = problem_from_document(catalog.template(name))
        prefix = f"{name}-{copy_no}-"
        merged.extend(replace(inst, dag_node=prefix + inst.dag_node) for inst in problem.instances)
        edges.extend((prefix + a, prefix + b) for a, b in problem.edges)
        if len(merged) >= instances:
            break
    merged = merged[:instances]
    present = {inst.dag_node for inst in merged}
    return PlacementProblem(instances=merged, edges=[(a, b) for a, b in edges if a in present and b in present])
