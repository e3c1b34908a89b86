"""Clusters of racks of servers; each server has a host computing node and one per SmartNIC.

A server is the fault domain of all its computing nodes (they share its power supply, paper §3.5).
"""

import uuid

from sqlalchemy import Float, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from e3.models.base import Base, Timestamps, UuidPk

NODE_KINDS = ("host", "smartnic")
NODE_STATES = ("up", "suspect", "down")


class Cluster(UuidPk, Timestamps, Base):
    __tablename__ = "clusters"
    name: Mapped[str] = mapped_column(String(63), unique=True)
    # power sources: precedence and each server's BMC (schemas.power_config; None: the agents' own figures)
    power: Mapped[dict | None] = mapped_column(JSONB)
    racks: Mapped[list["Rack"]] = relationship(back_populates="cluster", order_by="Rack.index",
                                               cascade="all, delete-orphan", passive_deletes=True)


class Rack(UuidPk, Base):
    __tablename__ = "racks"
    __table_args__ = (UniqueConstraint("cluster_id", "name"),)
    cluster_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clusters.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(63))
    index: Mapped[int] = mapped_column(Integer)  # position in the cluster, 0-based
    pod: Mapped[int] = mapped_column(Integer, default=0)  # FatTree pod
    cluster: Mapped[Cluster] = relationship(back_populates="racks")
    servers: Mapped[list["Server"]] = relationship(back_populates="rack", order_by="Server.index",
                                                   cascade="all, delete-orphan", passive_deletes=True)


class Server(UuidPk, Base):
    __tablename__ = "servers"
    __table_args__ = (UniqueConstraint("cluster_id", "name"),)
    cluster_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clusters.id", ondelete="CASCADE"), index=True)
    rack_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("racks.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(63))
    index: Mapped[int] = mapped_column(Integer)  # position in its rack
    server_type: Mapped[str] = mapped_column(ForeignKey("server_types.name"))
    rack: Mapped[Rack] = relationship(back_populates="servers")
    nodes: Mapped[list["ComputeNode"]] = relationship(back_populates="server", order_by="ComputeNode.index",
                                                      cascade="all, delete-orphan", passive_deletes=True)


class ComputeNode(UuidPk, Base):
    """A host processor or a SmartNIC: the unit microservice instances are placed on."""

    __tablename__ = "compute_nodes"
    __table_args__ = (UniqueConstraint("cluster_id", "name"), Index("ix_compute_nodes_server", "server_id", "index"))
    cluster_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("clusters.id", ondelete="CASCADE"), index=True)
    server_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("servers.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(127))  # "<server>/host" or "<server>/nic<i>"
    index: Mapped[int] = mapped_column(Integer)  # 0 = host, 1.. = SmartNICs
    kind: Mapped[str] = mapped_column(String(16))  # host | smartnic
    core_class: Mapped[str] = mapped_column(String(16))  # beefy | wimpy
    cores: Mapped[float] = mapped_column(Float)
    memory_mb: Mapped[int] = mapped_column(Integer)
    bandwidth_mbps: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(16), default="up")  # up | suspect | down
    # Set when an agent registers the node: who runs it and where its instances listen.
    agent_id: Mapped[str | None] = mapped_column(String(64))
    # The agent credential (api_tokens row) that registered it: only that credential may heartbeat for it,
    # read its commands and ACK them, and another is refused until this one is revoked (docs/security.md).
    agent_token_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("api_tokens.id", ondelete="SET NULL"))
    address: Mapped[str | None] = mapped_column(String(64))
    # Where its agent is reached from other agents (the IP it registered from): state transfers.
    control_address: Mapped[str | None] = mapped_column(String(64))
    server: Mapped[Server] = relationship(back_populates="nodes")

    @property
    def fault_domain(self) -> uuid.UUID:
        return self.server_id
