"""One read of a cluster: its computing nodes in topology order with their server and rack, what is reserved
on each, and its placed deployments with their instances.

It serves the cluster's detail and node list (services/clusters.py) and placement's capacities
(services/capacities.py); each reader asks only for the parts it shows. The readers of whole large clusters read
columns instead of rows: the live feed's metadata (`read_node_arrays`, `read_placed`, and the
`placement_fingerprint` that says when to read them again) and the placement view's layout (`usage_statement`,
joined by services/layout_topology.py).
"""

import uuid
from dataclasses import dataclass, field
from typing import NamedTuple

from sqlalchemy import Row, Select, Text, func, literal, select, text, union_all
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from e3.models import Application, ApplicationVersion, ComputeNode, Deployment, Instance, Migration, Rack, Server
from e3.models.migration import ACTIVE_MIGRATION_STATES

Usage = tuple[float, int, int, int]  # reserved cores, memory MB, bandwidth Mb/s, instance count
NO_USAGE: Usage = (0.0, 0, 0, 0)


class NodeRow(NamedTuple):
    """A computing node and where it sits."""

    node: ComputeNode
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


# What `read_node_arrays` reads of each computing node and where it sits (ids as text).
NODE_ARRAYS = dict(id=ComputeNode.id.cast(Text), name=ComputeNode.name, kind=ComputeNode.kind,
                   core_class=ComputeNode.core_class, state=ComputeNode.state, server_id=Server.id.cast(Text),
                   server=Server.name, server_type=Server.server_type, rack=Rack.name)


def read_node_arrays(session: Session, cluster_id: uuid.UUID) -> dict[str, list]:
    """The cluster's computing nodes as one list per NODE_ARRAYS column, each in topology order (item i of each
    list is node i). One query; at 50,000 nodes it loads in a fraction of the time as many rows take (the live
    feed's metadata, live/hub.py)."""
    rows = (select(*(column.label(name) for name, column in NODE_ARRAYS.items()),
                   func.row_number().over(order_by=(Rack.index, Server.index, ComputeNode.index)).label("position"))
            .join(Server, Server.id == ComputeNode.server_id).join(Rack, Rack.id == Server.rack_id)
            .where(ComputeNode.cluster_id == cluster_id)).subquery()
    answer = session.execute(select(*(func.array_agg(aggregate_order_by(rows.c[name], rows.c.position)).label(name)
                                      for name in NODE_ARRAYS))).one()
    return {name: getattr(answer, name) or [] for name in NODE_ARRAYS}


def topology_statement(cluster_id: uuid.UUID, where=None) -> Select:
    """The cluster's nodes (optionally only those matching `where`) as NodeRow columns, in topology order;
    a statement, so a reader can page through it."""
    stmt = (select(ComputeNode, Server.id, Server.name, Server.server_type, Rack.id, Rack.name, Rack.pod)
            .join(Server, Server.id == ComputeNode.server_id).join(Rack, Rack.id == Server.rack_id)
            .where(ComputeNode.cluster_id == cluster_id)
            .order_by(Rack.index, Server.index, ComputeNode.index))
    return stmt if where is None else stmt.where(where)


def usage_statement(cluster_id: uuid.UUID) -> Select:
    """(node_id, cores, memory_mb, bandwidth_mbps, instances) reserved per computing node of a cluster, for the
    nodes with anything reserved. A migration under way reserves its instance on the target too (counted there,
    not as an instance). A statement, so the layout's query can join it (services/layout_topology.py)."""
    placed = (select(Instance.node_id, Instance.cpu_cores, Instance.memory_mb, Instance.bandwidth_mbps,
                     literal(1).label("instance"))
              .join(ComputeNode, ComputeNode.id == Instance.node_id).where(ComputeNode.cluster_id == cluster_id))
    moving = (select(Migration.target_node_id, Instance.cpu_cores, Instance.memory_mb, Instance.bandwidth_mbps,
                     literal(0))
              .join(Instance, Instance.id == Migration.instance_id)
              .where(Migration.cluster_id == cluster_id, Migration.state.in_(ACTIVE_MIGRATION_STATES),
                     Instance.node_id != Migration.target_node_id))
    both = union_all(placed, moving).subquery()
    return (select(both.c.node_id.label("node_id"), func.sum(both.c.cpu_cores).label("cores"),
                   func.sum(both.c.memory_mb).label("memory_mb"),
                   func.sum(both.c.bandwidth_mbps).label("bandwidth_mbps"),
                   func.sum(both.c.instance).label("instances"))
            .group_by(both.c.node_id))


def node_usage(session: Session, cluster_id: uuid.UUID) -> dict[uuid.UUID, Usage]:
    """Reserved (cores, memory MB, bandwidth Mb/s, instance count) per computing node of a cluster
    (`usage_statement`)."""
    return {row.node_id: (float(row.cores), int(row.memory_mb), int(row.bandwidth_mbps), int(row.instances))
            for row in session.execute(usage_statement(cluster_id))}


def read_cluster(session: Session, cluster_id: uuid.UUID, *, usage: bool = False,
                 placed: bool = False) -> ClusterRead:
    """The cluster's nodes in topology order (one query), with what is reserved on them if `usage` (one more),
    and its placed deployments and their instances if `placed` (one, and one more when there are any)."""
    read = ClusterRead([NodeRow._make(row) for row in session.execute(topology_statement(cluster_id))])
    if usage:
        read.usage = node_usage(session, cluster_id)
    if placed:
        read.deployments, read.instances = read_placed(session, cluster_id)
    return read


def read_placed(session: Session, cluster_id: uuid.UUID) -> tuple[list[Row], list[Row]]:
    """The cluster's placed deployments and their instances, as ClusterRead lists them (one query, and one more
    when there are any)."""
    deployments = session.execute(
        select(Deployment.id, Deployment.algorithm, Deployment.prediction, Application.name.label("application"),
               ApplicationVersion.version, ApplicationVersion.spec)
        .join(Application, Application.id == Deployment.application_id)
        .join(ApplicationVersion, ApplicationVersion.id == Deployment.application_version_id)
        .where(Deployment.cluster_id == cluster_id, Deployment.state == "placed")
        .order_by(Deployment.created_at)).all()
    if not deployments:
        return [], []
    instances = session.execute(
        select(Instance.id, Instance.node_id, Instance.deployment_id, Instance.dag_node, Instance.service,
               Instance.role, Instance.shard, Instance.replica, Instance.state, Instance.error, Instance.cpu_cores)
        .where(Instance.deployment_id.in_([d.id for d in deployments]))
        .order_by(Instance.deployment_id, Instance.ordinal)).all()
    return deployments, instances


# What read_node_arrays (but a node's state) and read_placed read, hashed row by row and summed: a change to any of
# it changes the fingerprint; a node's state, which changes often and is read from Redis, does not.
_FINGERPRINT = text("""
SELECT concat_ws(' ',
  (SELECT count(*) || '/' || coalesce(sum(hashtext(concat_ws('|', n.id, n.name, n.kind, n.core_class, n.index,
                                                             s.id, s.name, s.index, s.server_type, r.name,
                                                             r.index))), 0)
   FROM compute_nodes n JOIN servers s ON s.id = n.server_id JOIN racks r ON r.id = s.rack_id
   WHERE n.cluster_id = :cluster_id),
  (SELECT count(*) || '/' || coalesce(sum(hashtext(concat_ws('|', d.id, d.updated_at, d.algorithm, d.prediction,
                                                             d.created_at, a.name, v.version))), 0)
   FROM deployments d JOIN applications a ON a.id = d.application_id
   JOIN application_versions v ON v.id = d.application_version_id
   WHERE d.cluster_id = :cluster_id AND d.state = 'placed'),
  (SELECT count(*) || '/' || coalesce(sum(hashtext(concat_ws('|', i.id, i.node_id, i.deployment_id, i.ordinal,
                                                             i.dag_node, i.service, i.role, i.shard, i.replica,
                                                             i.state, i.error, i.cpu_cores))), 0)
   FROM instances i JOIN deployments d ON d.id = i.deployment_id
   WHERE d.cluster_id = :cluster_id AND d.state = 'placed'))
""")


def placement_fingerprint(session: Session, cluster_id: uuid.UUID) -> str:
    """A short text that changes when anything read_node_arrays (but a node's state) or read_placed reads of the
    cluster changes: a node added, an instance moved, promoted or removed, a deployment placed or rolled out. The
    live feed reads it every few seconds and its metadata again only when it changed (one row; at 50,000 nodes
    a few tens of milliseconds where the read itself takes half a second)."""
    return session.execute(_FINGERPRINT, {"cluster_id": cluster_id}).scalar_one()
