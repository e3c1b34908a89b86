"""Instance history: one row per change of an instance's placement (inserted, moved, promoted, its state changed,
removed), written by a database trigger on `instances` (migration 0015), so every path that changes an instance
is recorded, whichever code it runs. Read back by services.cluster_moments to replay the cluster's placement at a
past moment.

A row is the instance as it was from `ts` on; `gone` marks its removal. The application's name, version and
algorithm are copied in, so a deployment deleted since is still replayed.
"""

from sqlalchemy import (BigInteger, Boolean, Column, DateTime, Float, ForeignKey, Index, Integer, String, Table,
                        Uuid, text)

from e3.models.base import Base

instance_history = Table(
    "instance_history", Base.metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=True),
    Column("ts", DateTime(timezone=True), nullable=False, server_default=text("clock_timestamp()")),
    Column("cluster_id", Uuid, ForeignKey("clusters.id", ondelete="CASCADE"), nullable=False),
    Column("instance_id", Uuid, nullable=False),
    Column("deployment_id", Uuid, nullable=False),
    Column("application", String(63)),
    Column("application_version_id", Uuid),
    Column("algorithm", String(32)),
    Column("node_id", Uuid, nullable=False),
    Column("dag_node", String(63), nullable=False),
    Column("service", String(63), nullable=False),
    Column("shard", Integer, nullable=False),
    Column("replica", Integer, nullable=False),
    Column("role", String(16), nullable=False),
    Column("state", String(16), nullable=False),
    Column("cpu_cores", Float, nullable=False),
    Column("memory_mb", Integer, nullable=False),
    Column("gone", Boolean, nullable=False),
    Index("ix_instance_history_cluster_ts", "cluster_id", "ts"),
    Index("ix_instance_history_instance", "instance_id", "id"),
)
