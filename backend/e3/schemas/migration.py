"""Migrations of instances between computing nodes, and the event log."""

import uuid
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from e3.schemas.common import PageMeta


class MigrationCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    target_node: str = Field(min_length=1, max_length=127,
                             description="The computing node to move to: its name (e.g. rack-0-s1/host) or id")
    dry_run: bool = Field(False, description="Only check and predict the change (cost model); nothing is done")


class MigrationFigures(BaseModel):
    avg_latency_ms: float | None
    p99_latency_ms: float | None
    joules_per_request: float | None
    power_watts: float | None
    knee_rps: float | None


class MigrationPrediction(BaseModel):
    offered_rps: float | None = Field(description="The entry load both sides are compared at (the lower knee)")
    before: MigrationFigures
    after: MigrationFigures
    change: dict[str, float | None] = Field(description="after - before, per figure")
    level: int | None = Field(description="HCM level between the source and the target (0 same node .. 5 remote)")
    source: str = Field(description="Always model: a prediction, not a measurement")


class MigrationAnswer(BaseModel):
    """The dry run's answer (200), or the accepted migration (202) with where to follow it."""

    dry_run: bool
    instance_id: uuid.UUID
    service: str
    dag_node: str
    shard: int
    role: str
    source_node: str
    source_node_id: uuid.UUID
    target_node: str
    target_node_id: uuid.UUID
    stateful: bool = Field(description="Its reliable-collection state moves with it")
    prediction: MigrationPrediction
    migration_id: uuid.UUID | None = None
    status_url: str | None = None


class MigrationStep(BaseModel):
    name: str = Field(description="push | open_transfer | stop_and_transfer | update_routes | cleanup_source | "
                                  "undo_push")
    state: str = Field(description="running | done | failed")
    started_at: datetime | None
    finished_at: datetime | None
    ms: float | None = Field(description="How long the step took, milliseconds")
    commands: list[dict] = Field(default_factory=list, description="The agent commands it issued (node, version)")
    detail: str | None = None


class MigrationPublic(BaseModel):
    id: uuid.UUID
    instance_id: uuid.UUID
    source_node: str | None
    source_node_id: uuid.UUID
    target_node: str | None
    target_node_id: uuid.UUID
    kind: str = Field(description="move: the instance moves to the target; seed: a new backup on the target gets "
                                  "a copy of its primary's state (failover)")
    source_instance_id: uuid.UUID | None = Field(description="seed: the primary whose state is copied")
    reason: str = Field(description="manual | host_starvation | overload | failover")
    state: str = Field(description="pending | running | succeeded | rolling_back | rolled_back | failed")
    step: str | None = Field(description="The step under way or last run")
    steps: list[MigrationStep]
    stateful: bool
    error: dict | None
    prediction: dict | None
    requested_by: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


class MigrationsPublic(PageMeta):
    items: list[MigrationPublic]


class EventPublic(BaseModel):
    id: int = Field(description="Increasing: pass the last one seen as `since` to get only newer events")
    ts: datetime
    kind: str = Field(description="e.g. node.down, migration.step, migration.succeeded, command.nack")
    cluster_id: uuid.UUID | None
    subject: str = Field(description="What it concerns, e.g. node/<id>, instance/<id>, deployment/<id>")
    application: str | None = Field(None, description="The application of the deployment, instance or migration "
                                                      "it concerns, as named when it was recorded (data.application); "
                                                      "none for a node's own events")
    data: dict


class EventsPublic(BaseModel):
    items: list[EventPublic]
    next_since: int = Field(description="The id to pass as `since` next time (the last item's, or `since`)")
