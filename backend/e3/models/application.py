"""Applications (microservice DAGs) and their immutable versions."""

import uuid
from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from e3.models.base import Base, Timestamps, UuidPk, utcnow


class Application(UuidPk, Timestamps, Base):
    __tablename__ = "applications"
    name: Mapped[str] = mapped_column(String(63), unique=True)
    latest_version: Mapped[int] = mapped_column(Integer, default=1)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    versions: Mapped[list["ApplicationVersion"]] = relationship(
        back_populates="application", order_by="ApplicationVersion.version",
        cascade="all, delete-orphan", passive_deletes=True)


class ApplicationVersion(UuidPk, Timestamps, Base):
    """One DAG spec as it was saved. Never updated: a change is a new version."""

    __tablename__ = "application_versions"
    __table_args__ = (UniqueConstraint("application_id", "version"),)
    application_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("applications.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    spec: Mapped[dict] = mapped_column(JSONB)  # canonical DAG spec document
    digest: Mapped[str] = mapped_column(String(64))  # sha256 of the canonical spec
    created_by: Mapped[str | None] = mapped_column(String(127))  # token name
    application: Mapped[Application] = relationship(back_populates="versions")
