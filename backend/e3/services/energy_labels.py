"""What the controller's energy history needs to know of the nodes and instances it heard from: each
node's modelled idle watts (the idle part of attribution) and each instance's application, DAG node,
reservation, and whether its requests are its application's (controller.energy_rollups). Blocking."""

import uuid
from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from e3 import catalog
from e3.energy.server_split import node_idle_watts
from e3.models import Application, ApplicationVersion, ComputeNode, Deployment, Instance, Server
from e3.schemas.dag import ApplicationSpec


@dataclass(frozen=True)
class InstanceLabels:
    deployment_id: str
    application: str
    dag_node: str
    reserved_cores: float
    counts_requests: bool  # a primary of an entry DAG node (none leads to it): its requests are the application's


def _uuids(ids: Collection[str]) -> list[uuid.UUID]:
    out = []
    for text in ids:
        try:
            out.append(uuid.UUID(text))
        except ValueError:  # an id no agent of ours sends: nothing to look up
            pass
    return out


def idle_watts(session: Session, node_ids: Collection[str]) -> dict[str, float]:
    """Modelled idle watts of the nodes that exist (e3.energy.server_split.node_idle_watts)."""
    ids = _uuids(node_ids)
    if not ids:
        return {}
    nics = (select(ComputeNode.server_id, func.count().label("n")).where(ComputeNode.kind == "smartnic")
            .group_by(ComputeNode.server_id).subquery())
    rows = session.execute(
        select(ComputeNode.id, ComputeNode.kind, Server.server_type, func.coalesce(nics.c.n, 0))
        .join(Server, Server.id == ComputeNode.server_id)
        .outerjoin(nics, nics.c.server_id == ComputeNode.server_id)
        .where(ComputeNode.id.in_(ids))).all()
    types = catalog.server_types()
    return {str(node_id): node_idle_watts(kind, float(types[server_type].idle_watts) if server_type in types else 0.0,
                                          int(n))
            for node_id, kind, server_type, n in rows}


def instance_labels(session: Session, instance_ids: Collection[str]) -> dict[str, InstanceLabels]:
    """Labels of the instances that exist (a removed one is not found: its energy stays its node's)."""
    ids = _uuids(instance_ids)
    if not ids:
        return {}
    rows = session.execute(
        select(Instance.id, Instance.deployment_id, Instance.dag_node, Instance.role, Instance.cpu_cores,
               Application.name, ApplicationVersion.spec)
        .join(Deployment, Deployment.id == Instance.deployment_id)
        .join(Application, Application.id == Deployment.application_id)
        .join(ApplicationVersion, ApplicationVersion.id == Deployment.application_version_id)
        .where(Instance.id.in_(ids))).all()
    entries: dict[str, set[str]] = {}
    out = {}
    for iid, dep_id, dag_node, role, cores, application, spec in rows:
        if str(dep_id) not in entries:
            doc = ApplicationSpec.from_document(spec)
            targets = {e.to for e in doc.edges}
            entries[str(dep_id)] = {n.id for n in doc.nodes if n.id not in targets}
        out[str(iid)] = InstanceLabels(str(dep_id), application, dag_node, float(cores),
                                       role == "primary" and dag_node in entries[str(dep_id)])
    return out
