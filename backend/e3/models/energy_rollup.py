"""Energy history: per step (bucket) of `step_s` seconds, one row per node and one per instance on it.

Written by the controller (controller.energy_rollups) as each step closes, added to on conflict (a late
heartbeat's energy joins its step's row); read by services.energy_history. A node's row
(`instance_id` NULL) holds the node's energy over the step; its instances' rows hold what attribution
gave each (e3.energy.attribution), and `unattributed_joules` on the node's row what no instance got:
Σ instances' joules + unattributed = the node's joules. The application labels are copied into the row
when it is written, so history outlives the deployment.
"""

from sqlalchemy import BigInteger, Boolean, CheckConstraint, Column, DateTime, Float, Index, Integer, String, Table, Uuid

from e3.models.base import Base

energy_rollups = Table(
    "energy_rollups", Base.metadata,
    Column("ts", DateTime(timezone=True), nullable=False),  # the step's start
    Column("step_s", Integer, nullable=False),
    Column("cluster_id", Uuid, nullable=False),
    Column("node_id", Uuid, nullable=False),
    Column("instance_id", Uuid),  # NULL: the node's own row
    Column("deployment_id", Uuid),
    Column("application", String(63)),
    Column("dag_node", String(63)),
    Column("joules", Float, nullable=False),
    Column("idle_joules", Float, nullable=False),
    Column("unattributed_joules", Float, nullable=False),  # node rows only (0 on an instance's)
    Column("requests", BigInteger, nullable=False),  # completed by the node's instances / by the instance
    # an entry primary's row: its requests are its application's (a request crossing five DAG nodes is one
    # request of the application, not five); the application's and cluster's requests sum these rows only
    Column("counts_requests", Boolean, nullable=False),
    Column("seconds", Float, nullable=False),  # the time the heartbeats covered in the step
    Column("heartbeats", Integer, nullable=False),
    Column("watts_max", Float, nullable=False),
    Column("source", String(12), nullable=False),  # rapl | ipmi | ipmi-split | model | mixed
    CheckConstraint("source IN ('rapl', 'ipmi', 'ipmi-split', 'model', 'mixed')", name="source"),
    Index("uq_energy_rollups_bucket", "ts", "node_id", "instance_id", unique=True,
          postgresql_nulls_not_distinct=True),
    Index("ix_energy_rollups_cluster_ts", "cluster_id", "ts"),
    Index("ix_energy_rollups_application_ts", "application", "ts"),
    Index("ix_energy_rollups_node_ts", "node_id", "ts"),
)
