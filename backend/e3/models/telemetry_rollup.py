"""Telemetry rollups: per node and per instance, what their heartbeats added up to in each step of `step_s`
seconds (e3.rollup.steps; written by controller.rollup_writer through services.telemetry_rollups).

Every figure is a sum, a count or a maximum, so rows are written in pieces and added on conflict. Both
tables are time-partitioned (one partition a day, as `heartbeats`), for retention by DROP PARTITION
(E3_HEARTBEAT_RETENTION_DAYS); their unique keys hold `ts` because a partitioned table's must.
"""

from sqlalchemy import BigInteger, CheckConstraint, Column, DateTime, Float, Index, Integer, String, Table, Uuid

from e3.models.base import Base

node_rollups = Table(
    "node_rollups", Base.metadata,
    Column("node_id", Uuid, nullable=False),
    Column("ts", DateTime(timezone=True), nullable=False),  # the step's start
    Column("step_s", Integer, nullable=False),
    Column("cluster_id", Uuid, nullable=False),
    Column("heartbeats", Integer, nullable=False),
    Column("seconds", Float, nullable=False),  # Σ the intervals the energy ledger charged
    Column("joules", Float, nullable=False),  # Σ watts × interval (e3.energy.ledger's rule)
    Column("power_source", String(12), nullable=False),  # rapl | ipmi | ipmi-split | model | mixed
    Column("power_watts_sum", Float, nullable=False),
    Column("power_watts_max", Float, nullable=False),
    Column("queue_len_sum", BigInteger, nullable=False),
    Column("queue_len_max", Integer, nullable=False),
    Column("cpu_util_sum", Float, nullable=False),
    Column("cpu_util_max", Float, nullable=False),
    Column("rx_bytes", BigInteger, nullable=False),  # Σ growth of the agent's counters
    Column("tx_bytes", BigInteger, nullable=False),
    Column("rx_packets", BigInteger, nullable=False),
    Column("tx_packets", BigInteger, nullable=False),
    Column("requests", BigInteger, nullable=False),  # completed by its instances
    Column("last_ts", DateTime(timezone=True), nullable=False),  # its latest heartbeat in the step
    CheckConstraint("power_source IN ('rapl', 'ipmi', 'ipmi-split', 'model', 'mixed')", name="power_source"),
    Index("uq_node_rollups_node_ts", "node_id", "ts", unique=True),
    Index("ix_node_rollups_cluster_ts", "cluster_id", "ts"),
    postgresql_partition_by="RANGE (ts)",
)

instance_rollups = Table(
    "instance_rollups", Base.metadata,
    Column("instance_id", String(64), nullable=False),  # as the agent named it (ours are UUIDs)
    Column("node_id", Uuid, nullable=False),
    Column("ts", DateTime(timezone=True), nullable=False),
    Column("step_s", Integer, nullable=False),
    Column("cluster_id", Uuid, nullable=False),
    Column("heartbeats", Integer, nullable=False),
    Column("requests", BigInteger, nullable=False),
    Column("exec_time_us_sum", Float, nullable=False),  # Σ mean exec time × requests
    Column("cpu_seconds", Float, nullable=False),  # Σ cpu share × interval
    Column("latency_count", BigInteger, nullable=False),
    Column("latency_us_sum", Float, nullable=False),  # Σ mean latency × count
    Column("latency_p99_max", Float, nullable=False),  # the highest per-heartbeat p99: an upper bound
    Column("latency_p99_weighted_sum", Float, nullable=False),  # Σ p99 × count
    Index("uq_instance_rollups_instance_node_ts", "instance_id", "node_id", "ts", unique=True),
    Index("ix_instance_rollups_node_ts", "node_id", "ts"),
    postgresql_partition_by="RANGE (ts)",
)
