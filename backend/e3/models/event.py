"""The event log: detections, decisions, migration steps, job and node state changes."""

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, Index, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from e3.models.base import Base, utcnow


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (Index("ix_events_ts", "ts"),)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    ts: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    kind: Mapped[str] = mapped_column(String(63))  # e.g. job.succeeded, node.down, migration.step
    cluster_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("clusters.id", ondelete="CASCADE"), index=True)
    subject: Mapped[str] = mapped_column(String(255))  # what it concerns, e.g. "deployment/<id>"
    data: Mapped[dict] = mapped_column(JSONB, default=dict)
