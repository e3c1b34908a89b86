"""API tokens (only their hashes) and the audit log of every write."""

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, Index, String
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from e3.models.base import Base, Timestamps, UuidPk, utcnow


class ApiToken(UuidPk, Timestamps, Base):
    __tablename__ = "api_tokens"
    name: Mapped[str] = mapped_column(String(63))
    prefix: Mapped[str] = mapped_column(String(16))  # first characters, to recognise a token in lists
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 hex of the whole token
    scopes: Mapped[list[str]] = mapped_column(ARRAY(String(16)))
    created_by: Mapped[str | None] = mapped_column(String(63))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # An agent credential's binding: it runs only this cluster's nodes (deleted with it), and of those only
    # the nodes of these servers when set. Unbound (NULL) agent tokens may run any node nobody else holds.
    cluster_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("clusters.id", ondelete="CASCADE"))
    servers: Mapped[list[str] | None] = mapped_column(ARRAY(String(127)))


class AuditEntry(Base):
    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_ts", "ts"),)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    ts: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    token_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("api_tokens.id", ondelete="SET NULL"))
    token_name: Mapped[str] = mapped_column(String(63))
    action: Mapped[str] = mapped_column(String(63))  # e.g. cluster.create
    target: Mapped[str] = mapped_column(String(255))  # e.g. cluster/rack-a
    detail: Mapped[dict] = mapped_column(JSONB, default=dict)
