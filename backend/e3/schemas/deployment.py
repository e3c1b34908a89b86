"""Deployment family: requests to deploy, deployments, placed instances, jobs."""

import uuid
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from e3.placement import ALGORITHMS
from e3.schemas.common import INT4_MAX, PageMeta

ALGORITHM_NAMES = " | ".join(ALGORITHMS)


class DeploymentCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    application: str = Field(description="Application name")
    version: int | None = Field(None, ge=1, le=INT4_MAX, description="Application version; the latest when omitted")
    cluster: str = Field(description="Cluster name")
    algorithm: str = Field("hcm", description=f"Placement algorithm: {ALGORITHM_NAMES}")
    anti_affinity: bool = Field(False, description="Put the shards of each DAG node on distinct servers")


class RefusalPublic(BaseModel):
    code: str = Field(description="The agent's error code, e.g. bad_config")
    message: str = Field(description="The agent's message")
    instances: int = Field(description="How many instances were refused with it")


class RolloutCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1, le=INT4_MAX, description="The application version to roll the deployment to")


class DeploymentPublic(BaseModel):
    id: uuid.UUID
    application: str
    version: int
    cluster: str
    algorithm: str
    anti_affinity: bool = False
    state: str = Field(description="The placement's state: pending | placing | placed | failed")
    status: str = Field(description="What the deployment is doing, from its placement and its instances' "
                                    "ACKs/NACKs: placing | deploying | running | degraded | failed | placed "
                                    "(placed: no agent runs its nodes, nothing executes it)")
    status_reason: str | None = Field(None, description="Why it is not running, in a sentence (None when running "
                                                        "or placing)")
    refusals: list[RefusalPublic] = Field(default_factory=list,
                                          description="The reasons agents gave for refusing instances, most "
                                                      "common first")
    instances: int
    instance_states: dict[str, int] = Field(default_factory=dict,
                                            description="How many instances are in each state (see InstancePublic)")
    error: dict | None
    prediction: dict | None = Field(None, description="The cost model's figures for this placement (source: model)")
    replaces: uuid.UUID | None = Field(None, description="While a rollout runs: the deployment this one replaces "
                                                        "once it runs (null after: that one is removed)")
    created_at: datetime
    updated_at: datetime
    job_id: uuid.UUID | None


class DeploymentsPublic(PageMeta):
    items: list[DeploymentPublic]


class JobAccepted(BaseModel):
    job_id: uuid.UUID
    deployment_id: uuid.UUID
    status_url: str


class InstancePublic(BaseModel):
    id: uuid.UUID
    dag_node: str
    service: str
    shard: int
    replica: int = Field(description="0 is the primary")
    role: str = Field(description="primary | backup")
    node: str
    node_id: uuid.UUID
    node_kind: str
    server: str
    rack: str
    state: str = Field(description="placed (its node has no agent) | deploying (command sent to the node's agent) | "
                                   "running (the agent ACKed) | failed (the agent NACKed; see error)")
    address: str | None = Field(None, description="IP of its node's agent, once deployed")
    port: int | None = Field(None, description="UDP port it serves on at `address`, once deployed")
    error: dict | None = Field(None, description="The agent's NACK when failed: {code, message}")


class PlacementPublic(PageMeta):
    deployment_id: uuid.UUID
    items: list[InstancePublic]


class JobPublic(BaseModel):
    id: uuid.UUID
    kind: str
    state: str = Field(description="queued | running | succeeded | failed")
    progress: float = Field(description="0..1")
    message: str
    error: dict | None
    result: dict | None = Field(None, description="e.g. the placement algorithm and its own runtime_ms")
    deployment_id: uuid.UUID | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class JobsPublic(PageMeta):
    items: list[JobPublic]


MAX_OFFERED_RPS = 1e9
OFFERED_RPS_DESCRIPTION = ("Entry requests/s to evaluate the model at (the dashboard sends the measured throughput); "
                           "the knee when omitted")


class ModelAtLoadPublic(BaseModel):
    """The cost model's figures for the deployment's current placement at one entry load (source: model)."""

    deployment_id: uuid.UUID
    offered_rps: float | None = Field(description="The entry load asked; null: the knee")
    throughput_rps: float = Field(description="Served: the offered load, capped at saturation")
    knee_rps: float | None = Field(description="The placement's capacity: the entry rate at which its bottleneck "
                                               "reaches the knee")
    capacity_rps: float | None = Field(description="The entry rate at which its bottleneck saturates")
    saturated: bool
    avg_latency_ms: float | None = Field(description="null: unbounded (saturated)")
    p99_latency_ms: float | None
    power_watts: float = Field(description="Modelled watts charged to the application as the measured figure is: on "
                                           "each node running its instances, idle by reserved cores among all the "
                                           "node's instances, the power above idle to it")
    joules_per_request: float | None = Field(description="power_watts over throughput_rps")
    servers_power_watts: float = Field(description="Modelled watts of the whole servers it runs on")
    source: str = Field(description="Always model")
