"""The cluster layout the placement view draws: topology and every placed instance, in columns.

Columns (parallel arrays) rather than one object per instance keep 10,000 instances small on the
wire and quick to parse in the browser.
"""

import uuid
from datetime import datetime

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


class MomentEnergy(BaseModel):
    joules_per_request: float | None = Field(description="Over the energy step holding the moment; null when none "
                                                         "was recorded")
    watts: float | None = Field(description="Mean power over that step")
    energy_source: str | None = Field(description="rapl | ipmi | ipmi-split | model | mixed: where the watts came "
                                                  "from")
    energy_from: datetime | None = Field(description="The energy step's start")
    energy_to: datetime | None = Field(description="The energy step's end")


class MomentApplication(MomentEnergy):
    deployment_id: uuid.UUID
    application: str
    window_s: int = Field(description="Throughput and latency are over this many seconds before the moment")
    throughput_rps: float = Field(description="Requests/s completed by its entry primaries (measured)")
    avg_latency_us: float | None
    p99_latency_us: float | None = Field(description="The highest per-heartbeat p99 in the window: an upper bound")


class ClusterMoment(BaseModel):
    """The cluster as it was at a moment (replay): its placement, node states and figures then."""

    cluster: str
    at: datetime
    placement_recorded_since: datetime | None = Field(
        description="The first recorded placement change of this cluster: before it the placement is not known")
    placement_known: bool = Field(description="False before placement_recorded_since: `layout` then shows no "
                                              "instances because none is known, not because none ran")
    layout: ClusterLayout = Field(description="As GET /clusters/{name}/layout, as it was at the moment (today's "
                                              "topology; instances' refusals are not kept)")
    applications: list[MomentApplication]
    power: MomentEnergy = Field(description="The cluster's power over the energy step holding the moment")
