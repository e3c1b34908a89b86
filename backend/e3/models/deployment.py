"""Deployments of an application version onto a cluster, and the placed instances."""

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Uuid, false
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from e3.models.base import Base, Timestamps, UuidPk, utcnow

DEPLOYMENT_STATES = ("pending", "placing", "placed", "failed")
INSTANCE_ROLES = ("primary", "backup")
# seeding: a new backup being given its primary's state (a seed migration), off the route table until done
INSTANCE_STATES = ("placed", "deploying", "running", "failed", "seeding")


class Deployment(UuidPk, Timestamps, Base):
    __tablename__ = "deployments"
    application_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("applications.id", ondelete="RESTRICT"), index=True)
    application_version_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("application_versions.id", ondelete="RESTRICT"))
    cluster_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clusters.id", ondelete="RESTRICT"), index=True)
    algorithm: Mapped[str] = mapped_column(String(32))
    anti_affinity: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    state: Mapped[str] = mapped_column(String(16), default="pending")
    error: Mapped[dict | None] = mapped_column(JSONB)
    prediction: Mapped[dict | None] = mapped_column(JSONB)  # the cost model's figures, source "model"
    # a rollout's new deployment: the one it replaces once it runs (then deleted: the link is set null)
    replaces_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, ForeignKey("deployments.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    instances: Mapped[list["Instance"]] = relationship(back_populates="deployment", cascade="all, delete-orphan",
                                                       passive_deletes=True)


class Instance(UuidPk, Base):
    """One shard replica of a DAG node, placed on a computing node, with its reservation."""

    __tablename__ = "instances"
    __table_args__ = (Index("ix_instances_deployment_order", "deployment_id", "ordinal"),)
    deployment_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("deployments.id", ondelete="CASCADE"))
    ordinal: Mapped[int] = mapped_column(Integer)  # stable listing order within the deployment
    dag_node: Mapped[str] = mapped_column(String(63))
    service: Mapped[str] = mapped_column(String(63))
    shard: Mapped[int] = mapped_column(Integer)
    replica: Mapped[int] = mapped_column(Integer)  # 0 is the primary
    role: Mapped[str] = mapped_column(String(16))  # primary | backup
    node_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("compute_nodes.id", ondelete="RESTRICT"), index=True)
    cpu_cores: Mapped[float] = mapped_column(Float)
    memory_mb: Mapped[int] = mapped_column(Integer)
    bandwidth_mbps: Mapped[int] = mapped_column(Integer)
    # placed (no agent runs its node) | deploying (command sent) | running (ACKed) | failed (NACKed) | seeding
    state: Mapped[str] = mapped_column(String(16), default="placed")
    port: Mapped[int | None] = mapped_column(Integer)  # UDP port on its node's address, once deployed
    error: Mapped[dict | None] = mapped_column(JSONB)  # the agent's NACK: {code, message}
    # ids of primaries this one took over in failovers: requests for them are routed here (upstream
    # instances deployed before the failover still name them)
    aliases: Mapped[list | None] = mapped_column(JSONB)
    # bumped whenever another copy becomes the one that serves (a move's switch, a promotion); agents
    # refuse commands naming an older one (docs/agents.md, "Never two primaries")
    epoch: Mapped[int] = mapped_column(BigInteger, default=1, server_default="1")
    deployment: Mapped[Deployment] = relationship(back_populates="instances")
