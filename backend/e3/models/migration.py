"""Instance migrations between computing nodes (the orchestrator's cold migration, paper §3.4)."""

import uuid
from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Uuid, false, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from e3.models.base import Base, Timestamps, UuidPk, utcnow

MIGRATION_REASONS = ("manual", "host_starvation", "overload", "failover")
# move: the instance goes to the target node; seed: a new backup (the instance, already on the target and
# `seeding`) gets a copy of its primary's state (failover, docs/orchestrator.md)
MIGRATION_KINDS = ("move", "seed")
# pending -> running -> succeeded; running -> rolling_back -> rolled_back; failed: stopped, nothing undone
MIGRATION_STATES = ("pending", "running", "succeeded", "rolling_back", "rolled_back", "failed")
ACTIVE_MIGRATION_STATES = ("pending", "running", "rolling_back")


class Migration(UuidPk, Timestamps, Base):
    __tablename__ = "migrations"
    __table_args__ = (
        Index("ix_migrations_cluster_created", "cluster_id", "created_at"),
        # At most one migration of an instance under way: the database says "already migrating".
        Index("uq_migrations_active_instance", "instance_id", unique=True,
              postgresql_where=text("state IN ('pending', 'running', 'rolling_back')")),
    )
    instance_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("instances.id", ondelete="CASCADE"), index=True)
    cluster_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("clusters.id", ondelete="CASCADE"))
    source_node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("compute_nodes.id", ondelete="RESTRICT"))
    target_node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("compute_nodes.id", ondelete="RESTRICT"))
    kind: Mapped[str] = mapped_column(String(16), default="move", server_default="move")  # MIGRATION_KINDS
    # seed: the primary whose state is copied (no foreign key: it may be lost to a later failure)
    source_instance_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    reason: Mapped[str] = mapped_column(String(32))  # MIGRATION_REASONS
    state: Mapped[str] = mapped_column(String(32), default="pending")  # MIGRATION_STATES
    step: Mapped[str | None] = mapped_column(String(32))  # the step under way, persisted for resume
    # [{name, state, started_at, finished_at, ms, command: {node_id, version} | None, detail}]
    steps: Mapped[list] = mapped_column(JSONB, default=list)
    stateful: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    target_port: Mapped[int | None] = mapped_column(Integer)  # the instance's UDP port on the target
    transfer_port: Mapped[int | None] = mapped_column(Integer)  # TCP port the target listens on for the state
    error: Mapped[dict | None] = mapped_column(JSONB)  # {code, message} when rolled back or failed
    prediction: Mapped[dict | None] = mapped_column(JSONB)  # the cost model's before/after, source "model"
    requested_by: Mapped[str | None] = mapped_column(String(127))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
