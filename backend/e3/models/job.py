"""Background jobs run by the Celery worker, with progress a client can poll."""

import uuid
from datetime import datetime

from sqlalchemy import DateTime, Float, ForeignKey, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from e3.models.base import Base, Timestamps, UuidPk

JOB_STATES = ("queued", "running", "succeeded", "failed")


class Job(UuidPk, Timestamps, Base):
    __tablename__ = "jobs"
    kind: Mapped[str] = mapped_column(String(32))  # deploy | ...
    state: Mapped[str] = mapped_column(String(16), default="queued", index=True)
    progress: Mapped[float] = mapped_column(Float, default=0.0)  # 0..1
    message: Mapped[str] = mapped_column(String(1000), default="")
    error: Mapped[dict | None] = mapped_column(JSONB)  # {code, message, errors[]} when failed
    result: Mapped[dict | None] = mapped_column(JSONB)  # e.g. {algorithm, runtime_ms, optimal, instances}
    deployment_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("deployments.id", ondelete="SET NULL"), index=True)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
