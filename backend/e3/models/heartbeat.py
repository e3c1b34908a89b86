"""Heartbeats: time-partitioned (one partition a day) for COPY ingest and retention by DROP PARTITION.

The migration creates it PARTITION BY RANGE (ts); this mapping is
for reads. There is no primary key: a partitioned table's key would have to include `ts`, and
nothing refers to a heartbeat row. The columns are a heartbeat record's, one per node field
(e3.heartbeat_record.COPY_COLUMNS, the intake's COPY rows).
"""

from sqlalchemy import BigInteger, CheckConstraint, Column, DateTime, Float, Index, Integer, String, Table, Uuid
from sqlalchemy.dialects.postgresql import JSONB

from e3.models.base import Base

heartbeats = Table(
    "heartbeats", Base.metadata,
    Column("node_id", Uuid, nullable=False),
    Column("ts", DateTime(timezone=True), nullable=False),
    Column("queue_len", Integer, nullable=False),  # traffic-manager queue, packets
    Column("rx_bytes", BigInteger, nullable=False),
    Column("tx_bytes", BigInteger, nullable=False),
    Column("rx_packets", BigInteger, nullable=False),
    Column("tx_packets", BigInteger, nullable=False),
    Column("cpu_util", Float, nullable=False),  # 0..1
    Column("power_watts", Float),
    Column("power_source", String(12)),  # e3.heartbeat_record.STORED_POWER_SOURCES
    Column("instances", JSONB),  # per instance: its id and e3.heartbeat_record.INSTANCE_FIELDS
    Index("ix_heartbeats_node_ts", "node_id", "ts"),
    CheckConstraint("power_source IN ('rapl', 'ipmi', 'ipmi-split', 'model')", name="power_source"),
    postgresql_partition_by="RANGE (ts)",
)

