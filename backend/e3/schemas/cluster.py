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
    agent_id: str | None = Field(None, description="The agent running it, once one has registered")
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
    server_types: dict[str, int] = Field(description="Servers per server type")
    deployments: int


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


class InstanceTelemetry(BaseModel):
    instance_id: str
    requests: int = Field(description="Requests completed in the heartbeat period")
    exec_us: float
    exec_ema_us: float
    cpu_share: float
    latency_count: int = Field(0, description="Requests it answered OK in the heartbeat period (0 from agents "
                                              "that do not measure latency)")
    latency_avg_us: float = Field(0.0, description="Their mean latency, from arrival at the instance to its reply "
                                                   "(downstream calls included), measured by the agent, µs")
    latency_p99_us: float = Field(0.0, description="Their 99th percentile (log-linear buckets, within ~3%), µs")


class TelemetryPoint(BaseModel):
    ts: datetime
    queue_len: int
    rx_bytes: int
    tx_bytes: int
    rx_packets: int
    tx_packets: int
    cpu_util: float
    power: Power
    requests: int = Field(description="Requests completed on the node in the heartbeat period")
    instances: list[InstanceTelemetry]


class NodeTelemetry(BaseModel):
    node_id: uuid.UUID
    since: datetime
    until: datetime | None
    items: list[TelemetryPoint]
    next_since: datetime | None = Field(description="Pass as `since` for the next page; null on the last page")


class NodesPublic(PageMeta):
    items: list[NodePublic]


NodePublic.model_rebuild()  # resolves the forward reference to TelemetrySummary
