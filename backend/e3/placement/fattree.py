"""Computing nodes of a FatTree cluster of one server type, as the cluster generator lays it out, for placement
without a database (benchmarks, the capacity planner). Pure."""

from e3.catalog import ServerType, server_type_nodes
from e3.placement.model import NodeCapacity


def fattree_nodes(server_type: ServerType, servers: int, servers_per_rack: int = 40,
                  racks_per_pod: int = 8) -> list[NodeCapacity]:
    """`servers` servers of `server_type` (catalogue or custom), in topology order."""
    shapes = server_type_nodes(server_type)
    nodes = []
    for s in range(servers):
        rack = s // servers_per_rack
        server_name = f"r{rack:04d}-s{s % servers_per_rack:02d}"
        for shape in shapes:
            name = f"{server_name}/{shape.suffix}"
            nodes.append(NodeCapacity(id=name, name=name, kind=shape.kind, server=server_name, rack=rack,
                                      pod=rack // racks_per_pod, server_type=server_type.name,
                                      core_class=shape.core_class, cpu_cores=shape.cores, memory_mb=shape.memory_mb,
                                      bandwidth_mbps=shape.bandwidth_mbps))
    return nodes
