"""The cluster layout the placement view draws: topology and every placed instance, in columns.

Columns (parallel arrays) rather than one object per instance keep 10,000 instances small on the
wire and quick to parse in the browser.
"""

import uuid

from pydantic import BaseModel, Field


class LayoutRack(BaseModel):
    name: str
    pod: int


class LayoutServer(BaseModel):
    name: str
    server_type: str
    rack: int = Field(description="Index into racks")


class LayoutNode(BaseModel):
    id: uuid.UUID
    name: str
    kind: str
    server: int = Field(description="Index into servers")
    cores: float
    memory_mb: int
    used_cores: float
    used_memory_mb: int
    state: str


class LayoutDeployment(BaseModel):
    id: uuid.UUID
    application: str
    version: int
    algorithm: str
    edges: list[tuple[str, str]] = Field(description="The DAG's edges (from, to) by DAG node id")


class LayoutInstanceError(BaseModel):
    code: str = Field(description="The agent's error code, e.g. bad_config")
    message: str


class LayoutInstances(BaseModel):
    """Parallel arrays: instance i is on nodes[node[i]], of deployments[deployment[i]]."""

    id: list[uuid.UUID]
    node: list[int]
    deployment: list[int]
    dag_node: list[str]
    service: list[str]
    shard: list[int]
    replica: list[int] = Field(description="0 is the primary")
    state: list[str] = Field(description="placed (its node has no agent) | deploying | running (its agent ACKed) | "
                                         "failed (its agent NACKed: see error) | seeding (a new backup)")
    error: list[LayoutInstanceError | None] = Field(description="The agent's NACK, {code, message}, for a failed instance; "
                                                 "null for the others")


class ClusterLayout(BaseModel):
    cluster: str
    racks: list[LayoutRack]
    servers: list[LayoutServer]
    nodes: list[LayoutNode]
    deployments: list[LayoutDeployment]
    instances: LayoutInstances
