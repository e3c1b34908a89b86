"""Cluster family: what the API returns for clusters, racks, servers and computing nodes."""

import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from e3.schemas.common import PageMeta


class NodePublic(BaseModel):
    id: uuid.UUID
    name: str
    kind: str = Field(description="host | smartnic")
    core_class: str = Field(description="beefy | wimpy")
    cores: float
    memory_mb: int
    bandwidth_mbps: int
    state: str = Field(description="up | suspect | down")
    server: str = Field(description="Server name: the node's fault domain")
    rack: str
    used_cores: float = 0.0
    used_memory_mb: int = 0
    used_bandwidth_mbps: int = 0
    instances: int = 0


class ServerPublic(BaseModel):
    id: uuid.UUID
    name: str
    server_type: str
    nodes: list[NodePublic]


class RackPublic(BaseModel):
    id: uuid.UUID
    name: str
    pod: int
    servers: list[ServerPublic]


class ClusterPublic(BaseModel):
    id: uuid.UUID
    name: str
    created_at: datetime
    racks: int
    servers: int
    nodes: int
    server_types: dict[str, int] = Field(description="Servers per server type")
    deployments: int


class ClusterDetail(ClusterPublic):
    topology: list[RackPublic]


class ClustersPublic(PageMeta):
    items: list[ClusterPublic]


class NodesPublic(PageMeta):
    items: list[NodePublic]
