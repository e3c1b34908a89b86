"""Cluster family: what the API returns for clusters, racks, servers and computing nodes."""

import uuid
from datetime import datetime
from typing import Literal

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
    ts: datetime = Field(description="Time of the latest heartbeat stored")
    queue_len: int = Field(description="Mean queue length over the node's latest 1 s step, packets")
    cpu_util: float = Field(description="Mean CPU utilisation over the latest step, 0..1")
    power: Power = Field(description="Mean power over the latest step, with its source (mixed: the step's "
                                     "heartbeats disagreed)")
    requests: int = Field(description="Requests completed on the node over the window")
    window_s: int


InstanceTelemetry = create_model("InstanceTelemetry", __module__=__name__, instance_id=(str, ...),
                                 **telemetry_fields(INSTANCE_FIELDS))

# one raw heartbeat (the controller's tail): its time, the record's node fields (power nested), its instances
TelemetryPoint = create_model(
    "TelemetryPoint", __module__=__name__,
    resolution=(Literal["raw"], Field(description="A raw heartbeat, as its agent sent it")),
    ts=(datetime, ...), **telemetry_fields(NODE_FIELDS), power=(Power, ...),
    requests=(int, Field(description="Requests completed on the node in the heartbeat period")),
    instances=(list[InstanceTelemetry], ...))


class InstanceStep(BaseModel):
    instance_id: str
    heartbeats: int = Field(description="Heartbeats of its node in the step that reported it")
    requests: int = Field(description="Requests it completed in the step")
    exec_time_us: float = Field(description="Mean execution time per request, weighted by requests, µs (0 without)")
    cpu_seconds: float = Field(description="CPU time it used: Σ its CPU share × each heartbeat's interval, s")
    latency_count: int = Field(description="Requests it answered OK in the step")
    latency_avg_us: float = Field(description="Their mean latency, weighted by count, µs (0 without)")
    latency_p99_us: float = Field(description="The highest of its heartbeats' p99s in the step: an upper bound of "
                                              "the step's p99 (a true p99 needs the agents' histograms), µs")
    latency_p99_mean_us: float = Field(description="Its heartbeats' p99s averaged by count, µs")


class TelemetryStep(BaseModel):
    """A node's heartbeats of one step, summed (stored in Postgres: `node_rollups`, `instance_rollups`)."""

    resolution: Literal["1s"] = Field(description="A step of stored rollups")
    ts: datetime = Field(description="The step's start")
    step_s: int
    last_ts: datetime = Field(description="Its latest heartbeat")
    heartbeats: int
    seconds: float = Field(description="Time its heartbeats covered (their energy's intervals), s")
    queue_len: float = Field(description="Mean queue length over its heartbeats, packets")
    queue_len_max: int
    cpu_util: float = Field(description="Mean CPU utilisation, 0..1")
    cpu_util_max: float
    power: Power = Field(description="Mean watts over its heartbeats, with their source (mixed: they disagreed)")
    watts_max: float
    joules: float = Field(description="Energy: Σ watts × interval of its heartbeats (the energy ledger's rule)")
    rx_bytes: int = Field(description="Received in the step (growth of the agent's counters)")
    tx_bytes: int
    rx_packets: int
    tx_packets: int
    requests: int = Field(description="Requests completed by its instances in the step")
    instances: list[InstanceStep]


class NodeTelemetry(BaseModel):
    node_id: uuid.UUID
    since: datetime
    until: datetime | None
    items: list[TelemetryStep] = Field(description="Stored 1 s steps, oldest first")
    next_since: datetime | None = Field(description="Pass as `since` for the next page; null on the last page")
    tail: list[TelemetryPoint] = Field(
        description="On the last page: the raw heartbeats in (since, until] the controller still holds "
                    "(the last E3_RAW_TAIL_S seconds, newest `limit`), oldest first")
    tail_status: Literal["ok", "none", "unavailable", "not_requested"] = Field(
        description="ok: `tail` is what the controller holds; none: it holds no heartbeat of the node; "
                    "unavailable: it did not answer (`tail_error` says why); not_requested: not the last page")
    tail_since: datetime | None = Field(None, description="The oldest raw heartbeat the controller holds for the "
                                                          "node: before it, steps only")
    tail_error: str | None = None


class NodesPublic(PageMeta):
    items: list[NodePublic]


NodePublic.model_rebuild()  # resolves the forward reference to TelemetrySummary
