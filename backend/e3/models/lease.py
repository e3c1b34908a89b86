"""Controllers and the nodes each holds (docs/controller-scale-out.md §4): a controller process has a row, kept
alive by renewing its lease; a node's lease names the controller its agent registered at, with an epoch that
grows each time the node changes controller. The epoch travels to the agent (RegisterResponse.lease_epoch,
Command.lease_epoch), which refuses a command from a controller below the highest epoch it has seen."""

from sqlalchemy import BigInteger, Column, DateTime, ForeignKey, String, Table, Uuid, func

from e3.models.base import Base

controllers = Table(
    "controllers", Base.metadata,
    Column("id", Uuid, primary_key=True),
    Column("name", String(255), nullable=False),  # host/pid, for people
    Column("address", String(255), nullable=False),  # where agents reach it
    Column("started_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("lease_expires_at", DateTime(timezone=True), nullable=False),  # Postgres's clock, never the controller's
)

node_leases = Table(
    "node_leases", Base.metadata,
    Column("node_id", Uuid, ForeignKey("compute_nodes.id", ondelete="CASCADE"), primary_key=True),
    Column("controller_id", Uuid, ForeignKey("controllers.id", ondelete="SET NULL")),  # NULL: none holds it
    Column("epoch", BigInteger, nullable=False),
    Column("agent_id", String(64), nullable=False),
    Column("acquired_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)
