"""Cluster family: what the API returns for clusters, racks, servers and computing nodes."""

import uuid
from datetime import datetime

from pydantic import BaseModel, Field, create_model

from e3.heartbeat_record import INSTANCE_FIELDS, NODE_FIELDS
from e3.schemas.common import PageMeta
from e3.schemas.record_fields import telemetry_fields


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
    agent_id: str | None = Field(None, description="The agent running it, once one has registered (shown to "
                                                   "admin tokens only)")
    address: str | None = Field(None, description="IP its instances serve on, as its agent registered it")
    telemetry: "TelemetrySummary | None" = Field(None, description="Recent heartbeats, if any in the last minute")


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
    agent_nodes: int = Field(description="Nodes an agent has registered for (0: nothing would execute a deployment)")
    server_types: dict[str, int] = Field(description="Servers per server type")
    deployments: int


class ClusterAccepted(BaseModel):
    """A large cluster is built by a worker: its name is taken, poll the job until it has succeeded."""

    cluster_id: uuid.UUID
    name: str
    servers: int
    job_id: uuid.UUID
    status_url: str


class ClusterDetail(ClusterPublic):
    topology: list[RackPublic]


class ClustersPublic(PageMeta):
    items: list[ClusterPublic]


class Power(BaseModel):
    watts: float | None
    source: str | None = Field(description="rapl | ipmi (measured) or model (calibrated estimate, not a measurement)")


class TelemetrySummary(BaseModel):
    ts: datetime = Field(description="Time of the latest heartbeat")
    queue_len: int
    cpu_util: float
    power: Power
    requests: int = Field(description="Requests completed on the node over the window")
    window_s: int


InstanceTelemetry = create_model("InstanceTelemetry", __module__=__name__, instance_id=(str, ...),
                                 **telemetry_fields(INSTANCE_FIELDS))

# one stored heartbeat: its time, the record's node fields (power nested), and its instances
TelemetryPoint = create_model(
    "TelemetryPoint", __module__=__name__, ts=(datetime, ...), **telemetry_fields(NODE_FIELDS), power=(Power, ...),
    requests=(int, Field(description="Requests completed on the node in the heartbeat period")),
    instances=(list[InstanceTelemetry], ...))


class NodeTelemetry(BaseModel):
    node_id: uuid.UUID
    since: datetime
    until: datetime | None
    items: list[TelemetryPoint]
    next_since: datetime | None = Field(description="Pass as `since` for the next page; null on the last page")


class NodesPublic(PageMeta):
    items: list[NodePublic]


NodePublic.model_rebuild()  # resolves the forward reference to TelemetrySummary
