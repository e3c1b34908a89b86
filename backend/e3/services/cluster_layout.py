"""The cluster layout for the placement view: a few ordered queries, assembled into columns."""

from sqlalchemy import select
from sqlalchemy.orm import Session

from e3.models import Application, ApplicationVersion, ComputeNode, Deployment, Instance, Rack, Server
from e3.schemas.dag import ApplicationSpec
from e3.services.clusters import get_cluster, node_usage


def cluster_layout(session: Session, name: str) -> dict:
    cluster = get_cluster(session, name)
    racks = session.execute(select(Rack.id, Rack.name, Rack.pod).where(Rack.cluster_id == cluster.id)
                            .order_by(Rack.index)).all()
    rack_index = {r.id: i for i, r in enumerate(racks)}
    servers = session.execute(select(Server.id, Server.name, Server.server_type, Server.rack_id)
                              .join(Rack, Rack.id == Server.rack_id).where(Server.cluster_id == cluster.id)
                              .order_by(Rack.index, Server.index)).all()
    server_index = {s.id: i for i, s in enumerate(servers)}
    nodes = session.scalars(select(ComputeNode).join(Server, Server.id == ComputeNode.server_id)
                            .join(Rack, Rack.id == Server.rack_id).where(ComputeNode.cluster_id == cluster.id)
                            .order_by(Rack.index, Server.index, ComputeNode.index)).all()
    node_index = {n.id: i for i, n in enumerate(nodes)}
    usage = node_usage(session, cluster.id)
    deployments = session.execute(
        select(Deployment.id, Deployment.algorithm, Application.name, ApplicationVersion.version,
               ApplicationVersion.spec)
        .join(Application, Application.id == Deployment.application_id)
        .join(ApplicationVersion, ApplicationVersion.id == Deployment.application_version_id)
        .where(Deployment.cluster_id == cluster.id, Deployment.state == "placed")
        .order_by(Deployment.created_at)).all()
    deployment_index = {d.id: i for i, d in enumerate(deployments)}
    columns = {k: [] for k in ("id", "node", "deployment", "dag_node", "service", "shard", "replica")}
    if deployments:
        rows = session.execute(select(Instance.id, Instance.node_id, Instance.deployment_id, Instance.dag_node,
                                      Instance.service, Instance.shard, Instance.replica)
                               .where(Instance.deployment_id.in_(deployment_index))
                               .order_by(Instance.deployment_id, Instance.ordinal))
        for row in rows:
            columns["id"].append(row.id)
            columns["node"].append(node_index[row.node_id])
            columns["deployment"].append(deployment_index[row.deployment_id])
            columns["dag_node"].append(row.dag_node)
            columns["service"].append(row.service)
            columns["shard"].append(row.shard)
            columns["replica"].append(row.replica)
    return dict(
        cluster=cluster.name,
        racks=[dict(name=r.name, pod=r.pod) for r in racks],
        servers=[dict(name=s.name, server_type=s.server_type, rack=rack_index[s.rack_id]) for s in servers],
        nodes=[_layout_node(n, server_index[n.server_id], usage.get(n.id, (0.0, 0, 0, 0))) for n in nodes],
        deployments=[dict(id=d.id, application=d.name, version=d.version, algorithm=d.algorithm,
                          edges=[(e.from_, e.to) for e in ApplicationSpec.from_document(d.spec).edges])
                     for d in deployments],
        instances=columns)


def _layout_node(node: ComputeNode, server: int, usage: tuple[float, int, int, int]) -> dict:
    cores, memory_mb, _, _ = usage
    return dict(id=node.id, name=node.name, kind=node.kind, server=server, cores=node.cores,
                memory_mb=node.memory_mb, used_cores=cores, used_memory_mb=memory_mb, state=node.state)
