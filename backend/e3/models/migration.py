"""Instance migrations between computing nodes (the orchestrator's cold migration, paper §3.4)."""

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from e3.models.base import Base, Timestamps, UuidPk, utcnow


class Migration(UuidPk, Timestamps, Base):
    __tablename__ = "migrations"
    instance_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("instances.id", ondelete="CASCADE"), index=True)
    source_node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("compute_nodes.id", ondelete="RESTRICT"))
    target_node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("compute_nodes.id", ondelete="RESTRICT"))
    reason: Mapped[str] = mapped_column(String(32))  # manual | host_starvation | overload | failover
    state: Mapped[str] = mapped_column(String(32), default="pending")
    step: Mapped[str | None] = mapped_column(String(32))  # the step under way, persisted for resume
    steps: Mapped[list] = mapped_column(JSONB, default=list)  # [{name, started_at, finished_at, ok, detail}]
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
