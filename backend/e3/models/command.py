"""Commands the controller pushes to the agent of a computing node (agent.proto, StreamCommands)."""

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, String, UniqueConstraint, Uuid
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from e3.models.base import Base, UuidPk, utcnow

COMMAND_KINDS = ("deploy_instance", "remove_instance", "export_state", "import_state", "set_routes", "confirm_import",
                 "resume_instance", "promote_instance")
COMMAND_STATES = ("pending", "acked", "nacked")


class NodeCommand(UuidPk, Base):
    """One versioned command for one node; versions are per node and strictly increasing."""

    __tablename__ = "node_commands"
    __table_args__ = (UniqueConstraint("node_id", "version", name="uq_node_commands_node_version"),)
    node_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("compute_nodes.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict] = mapped_column(JSONB)  # the action message's fields, as in agent.proto
    # The instance it concerns (no foreign key: a remove outlives the deleted instance row).
    instance_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    state: Mapped[str] = mapped_column(String(16), default="pending")
    error: Mapped[dict | None] = mapped_column(JSONB)  # {code, message} of a NACK
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
