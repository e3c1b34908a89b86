"""Expanding a DAG's nodes into shard replicas with their catalogue reservations."""

from collections.abc import Iterable
from dataclasses import dataclass

from e3.catalog import ServiceType
from e3.placement.model import InstanceRequest


@dataclass(frozen=True)
class DagNodeDemand:
    """The part of a DAG node that placement needs."""

    id: str
    service: str
    shards: int
    replicas: int
    platform: str  # host | smartnic | any
    request_bytes: int = 512


def expand_instances(nodes: Iterable[DagNodeDemand], services: dict[str, ServiceType]) -> list[InstanceRequest]:
    """Every shard's primary, then its backups, node by node in the given order.

    A platform of `any` is narrowed to the service's catalogue platforms when those allow
    only one (sql runs on hosts only).
    """
    out = []
    for node in nodes:
        svc = services[node.service]
        platform = node.platform
        if platform == "any" and len(svc.platforms) == 1:
            platform = svc.platforms[0]
        for shard in range(node.shards):
            for replica in range(node.replicas + 1):
                out.append(InstanceRequest(
                    dag_node=node.id, service=node.service, shard=shard, replica=replica, platform=platform,
                    cpu_cores=svc.cpu_cores, memory_mb=svc.memory_mb, bandwidth_mbps=svc.bandwidth_mbps,
                    request_bytes=node.request_bytes))
    return out
