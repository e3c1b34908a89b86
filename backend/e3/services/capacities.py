"""The database's cluster as placement sees it: its computing nodes as NodeCapacity, with their reservations."""

import uuid

from sqlalchemy.orm import Session

from e3.placement.model import NodeCapacity
from e3.services.cluster_read import ClusterRead, read_cluster


def node_capacities(read: ClusterRead) -> list[NodeCapacity]:
    """Every node of `read` (read with its usage) that is not down (up, or suspect: a few heartbeats late, which
    must not fail a deployment or a migration), in topology order, with what deployments already reserve on it."""
    nodes = []
    for row in read.nodes:
        node = row.node
        if node.state == "down":
            continue
        cap = NodeCapacity(id=node.id, name=node.name, kind=node.kind, server=row.server_id, rack=row.rack_id,
                           pod=row.pod, server_type=row.server_type, core_class=node.core_class,
                           cpu_cores=node.cores, memory_mb=node.memory_mb, bandwidth_mbps=node.bandwidth_mbps)
        cores, mem, bw, _ = read.usage_of(node.id)
        cap.used.update(cpu_cores=cores, memory_mb=mem, bandwidth_mbps=bw)
        nodes.append(cap)
    return nodes


def cluster_capacities(session: Session, cluster_id: uuid.UUID) -> list[NodeCapacity]:
    """The cluster's nodes that are not down, as node_capacities says."""
    return node_capacities(read_cluster(session, cluster_id, usage=True))
