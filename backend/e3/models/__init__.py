"""SQLAlchemy models. Importing this package registers every table on Base.metadata."""

from e3.models.application import Application, ApplicationVersion
from e3.models.auth import ApiToken, AuditEntry
from e3.models.base import Base
from e3.models.catalog import ServerTypeRow, ServiceTypeRow
from e3.models.command import NodeCommand
from e3.models.deployment import Deployment, Instance
from e3.models.energy_rollup import energy_rollups
from e3.models.event import Event
from e3.models.instance_history import instance_history
from e3.models.job import Job
from e3.models.lease import controllers, node_leases
from e3.models.migration import Migration
from e3.models.telemetry_rollup import instance_rollups, node_rollups
from e3.models.topology import Cluster, ComputeNode, Rack, Server

__all__ = ["Application", "ApplicationVersion", "ApiToken", "AuditEntry", "Base", "ServerTypeRow",
           "ServiceTypeRow", "NodeCommand", "Deployment", "Instance", "energy_rollups", "Event", "instance_history", "Job", "controllers", "node_leases", "Migration",
           "node_rollups", "instance_rollups", "Cluster", "ComputeNode", "Rack", "Server"]
