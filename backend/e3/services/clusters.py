"""Clusters: build the topology rows from a validated spec, read it back, delete it."""

import uuid
from collections import defaultdict

from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from e3 import catalog
from e3.core.errors import Conflict, NotFound
from e3.core.security import Actor
from e3.models import Cluster, ComputeNode, Deployment, Rack, Server
from e3.schemas.cluster_spec import ClusterSpec
from e3.schemas.common import PageParams
from e3.services import audit, events, telemetry
from e3.services.cluster_read import NO_USAGE, NodeRow, Usage, node_usage, read_cluster, topology_statement
from e3.services.pagination import paginate


def node_rows(cluster_id: uuid.UUID, server_id: uuid.UUID, server_name: str, type_name: str) -> list[dict]:
    """The computing nodes of one server: its host, then one per SmartNIC."""
    return [dict(id=uuid.uuid4(), cluster_id=cluster_id, server_id=server_id, name=f"{server_name}/{n.suffix}",
                 index=n.index, kind=n.kind, core_class=n.core_class, cores=n.cores, memory_mb=n.memory_mb,
                 bandwidth_mbps=n.bandwidth_mbps, state="up")
            for n in catalog.computing_nodes(type_name)]


def create_cluster(session: Session, spec: ClusterSpec, actor: Actor) -> Cluster:
    """Insert the cluster and its whole topology in bulk (thousands of servers in one go)."""
    cluster = reserve_name(session, spec.name)
    servers, nodes = build_topology(session, cluster, spec)
    audit.record(session, actor, "cluster.create", f"cluster/{spec.name}", servers=servers, nodes=nodes)
    events.emit(session, "cluster.created", f"cluster/{spec.name}", cluster.id, servers=servers)
    session.flush()
    return cluster


def reserve_name(session: Session, name: str) -> Cluster:
    """The cluster's row, without topology yet: 409 if the name is taken, also by a concurrent create."""
    if session.scalar(select(Cluster.id).where(Cluster.name == name)):
        raise Conflict(f"cluster '{name}' already exists; choose another name", code="already_exists")
    cluster = Cluster(id=uuid.uuid4(), name=name)
    session.add(cluster)
    try:
        session.flush()
    except IntegrityError as exc:  # a concurrent create of the same name committed first
        raise Conflict(f"cluster '{name}' already exists", code="already_exists") from exc
    return cluster


def server_count(spec: ClusterSpec) -> int:
    return sum(len(rack.server_types) for rack in spec.racks)


def build_topology(session: Session, cluster: Cluster, spec: ClusterSpec) -> tuple[int, int]:
    """Insert the racks, servers and computing nodes of `spec` under `cluster`; returns (servers, nodes)."""
    racks, servers, nodes = [], [], []
    for r_index, rack in enumerate(spec.racks):
        rack_id = uuid.uuid4()
        racks.append(dict(id=rack_id, cluster_id=cluster.id, name=rack.name, index=r_index, pod=rack.pod))
        for s_index, type_name in enumerate(rack.server_types):
            server_id, server_name = uuid.uuid4(), f"{rack.name}-s{s_index:02d}"
            servers.append(dict(id=server_id, cluster_id=cluster.id, rack_id=rack_id, name=server_name,
                                index=s_index, server_type=type_name))
            nodes.extend(node_rows(cluster.id, server_id, server_name, type_name))
    session.execute(insert(Rack), racks)
    session.execute(insert(Server), servers)
    session.execute(insert(ComputeNode), nodes)
    return len(servers), len(nodes)


def get_cluster(session: Session, name: str) -> Cluster:
    cluster = session.scalar(select(Cluster).where(Cluster.name == name))
    if cluster is None:
        raise NotFound(f"cluster '{name}' not found")
    return cluster


def cluster_summaries(session: Session, clusters: list[Cluster]) -> list[dict]:
    """Counts per cluster (racks, servers, nodes, nodes run by agents, server types, deployments) in two queries
    (each a round trip of every cluster read: a list of clusters is one of the API's common reads)."""
    ids = [c.id for c in clusters]
    if not ids:
        return []

    def count(model, *where):
        return select(func.count()).select_from(model).where(model.cluster_id == Cluster.id, *where).scalar_subquery()

    counts = {row.id: row for row in session.execute(
        select(Cluster.id, count(Rack).label("racks"), count(ComputeNode).label("nodes"),
               count(ComputeNode, ComputeNode.agent_id.is_not(None)).label("agent_nodes"),
               count(Deployment).label("deployments")).where(Cluster.id.in_(ids)))}
    types: dict = defaultdict(dict)
    for cid, t, n in session.execute(select(Server.cluster_id, Server.server_type, func.count())
                                     .where(Server.cluster_id.in_(ids)).group_by(Server.cluster_id, Server.server_type)):
        types[cid][t] = n
    return [dict(id=c.id, name=c.name, created_at=c.created_at, racks=counts[c.id].racks,
                 servers=sum(types[c.id].values()), nodes=counts[c.id].nodes,
                 agent_nodes=counts[c.id].agent_nodes, server_types=types[c.id],
                 deployments=counts[c.id].deployments) for c in clusters]


def list_clusters(session: Session, page: PageParams) -> tuple[list[dict], int]:
    rows, total = paginate(session, select(Cluster).order_by(Cluster.name), page)
    return cluster_summaries(session, rows), total


def _node_public(row: NodeRow, usage: Usage, telemetry: dict | None = None, agent_ids: bool = False) -> dict:
    """`agent_ids`: include the id of the agent running it (for admins only: see docs/security.md)."""
    node = row.node
    cores, mem, bw, count = usage
    return dict(id=node.id, name=node.name, kind=node.kind, core_class=node.core_class, cores=node.cores,
                memory_mb=node.memory_mb, bandwidth_mbps=node.bandwidth_mbps, state=node.state, server=row.server,
                rack=row.rack, used_cores=cores, used_memory_mb=mem, used_bandwidth_mbps=bw, instances=count,
                agent_id=node.agent_id if agent_ids else None, address=node.address,
                telemetry=(telemetry or {}).get(node.id))


def cluster_detail(session: Session, name: str, agent_ids: bool = False) -> dict:
    """The cluster with racks -> servers -> computing nodes, and what is reserved on each node (with the ids of
    the agents running them if `agent_ids`)."""
    cluster = get_cluster(session, name)
    read = read_cluster(session, cluster.id, usage=True)
    racks: dict = {}
    for row in read.nodes:
        rack = racks.setdefault(row.rack_id, dict(id=row.rack_id, name=row.rack, pod=row.pod, servers={}))
        server = rack["servers"].setdefault(row.server_id, dict(id=row.server_id, name=row.server,
                                                                server_type=row.server_type, nodes=[]))
        server["nodes"].append(_node_public(row, read.usage_of(row.node.id), agent_ids=agent_ids))
    topology = [dict(r, servers=list(r["servers"].values())) for r in racks.values()]
    return dict(cluster_summaries(session, [cluster])[0], topology=topology)


def list_nodes(session: Session, name: str, page: PageParams, kind: str | None = None,
               agent_ids: bool = False) -> tuple[list[dict], int]:
    cluster = get_cluster(session, name)
    stmt = topology_statement(cluster.id, ComputeNode.kind == kind if kind else None)
    rows, total = paginate(session, stmt, page, scalars=False)
    nodes = [NodeRow._make(row) for row in rows]
    usage = node_usage(session, cluster.id)
    recent = telemetry.summaries(session, [row.node.id for row in nodes if row.node.agent_id])
    return [_node_public(row, usage.get(row.node.id, NO_USAGE), recent, agent_ids) for row in nodes], total


def delete_cluster(session: Session, name: str, actor: Actor) -> None:
    cluster = get_cluster(session, name)
    deployments = session.scalar(select(func.count()).where(Deployment.cluster_id == cluster.id))
    if deployments:
        raise Conflict(f"cluster '{name}' has {deployments} deployment(s); delete them first",
                       code="cluster_in_use")
    audit.record(session, actor, "cluster.delete", f"cluster/{name}")
    session.delete(cluster)
