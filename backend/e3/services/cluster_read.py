"""One read of a cluster: its computing nodes in topology order with their server and rack, what is reserved
on each, and its placed deployments with their instances.

It serves the cluster's detail and node list (services/clusters.py), the placement view's layout
(services/cluster_layout.py), the live feed's metadata (live/hub.py) and placement's capacities
(services/capacities.py). Each reader asks only for the parts it shows, so none queries more than it needs:
the live feed re-reads every few seconds, and the layout must stay quick at 10,000 instances.
"""

import uuid
from collections import namedtuple
from dataclasses import dataclass, field
from typing import NamedTuple

from sqlalchemy import Row, Select, func, select
from sqlalchemy.orm import Session

from e3.models import Application, ApplicationVersion, ComputeNode, Deployment, Instance, Migration, Rack, Server
from e3.models.migration import ACTIVE_MIGRATION_STATES

Usage = tuple[float, int, int, int]  # reserved cores, memory MB, bandwidth Mb/s, instance count
NO_USAGE: Usage = (0.0, 0, 0, 0)


# The columns of a computing node the drawings read, as a plain tuple (attribute access by name): 50,000 of these
# load in a fraction of the time ORM objects with every column take (the placement view's layout at 10,000 servers).
NodeColumns = namedtuple("NodeColumns", ["id", "name", "kind", "core_class", "cores", "memory_mb", "state"])


class NodeRow(NamedTuple):
    """A computing node and where it sits."""

    node: ComputeNode | NodeColumns
    server_id: uuid.UUID
    server: str
    server_type: str
    rack_id: uuid.UUID
    rack: str
    pod: int


@dataclass
class ClusterRead:
    nodes: list[NodeRow]  # racks, servers and nodes each by index
    usage: dict[uuid.UUID, Usage] = field(default_factory=dict)  # empty unless asked for
    # Placed deployments, oldest first (rows: id, algorithm, prediction, application, version, spec), and their
    # instances by deployment and ordinal (rows: id, node_id, deployment_id, dag_node, service, role, shard,
    # replica, state, error, cpu_cores); both empty unless asked for.
    deployments: list[Row] = field(default_factory=list)
    instances: list[Row] = field(default_factory=list)

    def usage_of(self, node_id: uuid.UUID) -> Usage:
        return self.usage.get(node_id, NO_USAGE)


def topology_statement(cluster_id: uuid.UUID, where=None, columns: bool = False) -> Select:
    """The cluster's nodes (optionally only those matching `where`) as NodeRow columns, in topology order;
    a statement, so a reader can page through it. `columns`: each node's NodeColumns first, not its ORM object."""
    node = [getattr(ComputeNode, name) for name in NodeColumns._fields] if columns else [ComputeNode]
    stmt = (select(*node, Server.id, Server.name, Server.server_type, Rack.id, Rack.name, Rack.pod)
            .join(Server, Server.id == ComputeNode.server_id).join(Rack, Rack.id == Server.rack_id)
            .where(ComputeNode.cluster_id == cluster_id)
            .order_by(Rack.index, Server.index, ComputeNode.index))
    return stmt if where is None else stmt.where(where)


def node_usage(session: Session, cluster_id: uuid.UUID) -> dict[uuid.UUID, Usage]:
    """Reserved (cores, memory MB, bandwidth Mb/s, instance count) per computing node of a cluster. A migration
    under way reserves its instance on the target too (counted there, not as an instance)."""
    stmt = (select(Instance.node_id, func.sum(Instance.cpu_cores), func.sum(Instance.memory_mb),
                   func.sum(Instance.bandwidth_mbps), func.count())
            .join(ComputeNode, ComputeNode.id == Instance.node_id)
            .where(ComputeNode.cluster_id == cluster_id).group_by(Instance.node_id))
    usage = {row[0]: (float(row[1]), int(row[2]), int(row[3]), int(row[4])) for row in session.execute(stmt)}
    moving = (select(Migration.target_node_id, Instance.cpu_cores, Instance.memory_mb, Instance.bandwidth_mbps)
              .join(Instance, Instance.id == Migration.instance_id)
              .where(Migration.cluster_id == cluster_id, Migration.state.in_(ACTIVE_MIGRATION_STATES),
                     Instance.node_id != Migration.target_node_id))
    for node_id, cores, mem, bw in session.execute(moving):
        c, m, b, n = usage.get(node_id, NO_USAGE)
        usage[node_id] = (c + cores, m + mem, b + bw, n)
    return usage


def read_cluster(session: Session, cluster_id: uuid.UUID, *, usage: bool = False,
                 placed: bool = False, columns: bool = False) -> ClusterRead:
    """The cluster's nodes in topology order (one query), with what is reserved on them if `usage` (two more),
    and its placed deployments and their instances if `placed` (one, and one more when there are any).
    `columns`: the nodes as NodeColumns, not ORM objects (for readers that change nothing)."""
    if columns:
        width = len(NodeColumns._fields)
        nodes = [NodeRow(NodeColumns._make(row[:width]), *row[width:])
                 for row in session.execute(topology_statement(cluster_id, columns=True))]
    else:
        nodes = [NodeRow._make(row) for row in session.execute(topology_statement(cluster_id))]
    read = ClusterRead(nodes)
    if usage:
        read.usage = node_usage(session, cluster_id)
    if placed:
        read.deployments = session.execute(
            select(Deployment.id, Deployment.algorithm, Deployment.prediction, Application.name.label("application"),
                   ApplicationVersion.version, ApplicationVersion.spec)
            .join(Application, Application.id == Deployment.application_id)
            .join(ApplicationVersion, ApplicationVersion.id == Deployment.application_version_id)
            .where(Deployment.cluster_id == cluster_id, Deployment.state == "placed")
            .order_by(Deployment.created_at)).all()
    if read.deployments:
        read.instances = session.execute(
            select(Instance.id, Instance.node_id, Instance.deployment_id, Instance.dag_node, Instance.service,
                   Instance.role, Instance.shard, Instance.replica, Instance.state, Instance.error,
                   Instance.cpu_cores)
            .where(Instance.deployment_id.in_([d.id for d in read.deployments]))
            .order_by(Instance.deployment_id, Instance.ordinal)).all()
    return read
