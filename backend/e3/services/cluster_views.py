"""The orchestrator's snapshot of a cluster (`orchestrator.decision.ClusterView`), read from the database.

Nodes that are not down (up, or suspect: a source, never a target) with what is reserved on them (migrations'
targets included), and every instance on them with what a decision needs: its reservation, its DAG node's
platform constraint and whether a migration of it is under way. Blocking; the controller calls it from a worker thread.
"""

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from e3.models import ApplicationVersion, Deployment, Instance, Migration
from e3.models.migration import ACTIVE_MIGRATION_STATES
from e3.orchestrator.decision import ClusterView, InstanceView
from e3.schemas.dag import ApplicationSpec
from e3.services.capacities import node_capacities
from e3.services.cluster_read import read_cluster


def _platforms(session: Session, deployment_ids: set[uuid.UUID]) -> dict[tuple[uuid.UUID, str], str]:
    """(deployment, DAG node) -> the DAG node's platform constraint (host | smartnic | any)."""
    rows = session.execute(select(Deployment.id, ApplicationVersion.spec)
                           .join(ApplicationVersion, ApplicationVersion.id == Deployment.application_version_id)
                           .where(Deployment.id.in_(deployment_ids)))
    return {(dep_id, n.id): n.platform
            for dep_id, document in rows for n in ApplicationSpec.from_document(document).nodes}


def cluster_view(session: Session, cluster_id: uuid.UUID) -> ClusterView:
    """The cluster as a decision sees it now: down nodes are left out; nodes neither up nor down (suspect) are in
    it as a detection's source, never as a target."""
    topology = read_cluster(session, cluster_id, usage=True)
    nodes = node_capacities(topology)
    down = [row.node.id for row in topology.nodes if row.node.state == "down"]
    unavailable = [row.node.id for row in topology.nodes if row.node.state not in ("up", "down")]
    rows = list(session.scalars(select(Instance).join(Deployment, Deployment.id == Instance.deployment_id)
                                .where(Deployment.cluster_id == cluster_id, Instance.state == "running")))
    migrating = set(session.scalars(select(Migration.instance_id).where(Migration.cluster_id == cluster_id,
                                                                         Migration.state.in_(ACTIVE_MIGRATION_STATES))))
    platforms = _platforms(session, {i.deployment_id for i in rows})
    instances = [InstanceView(id=str(i.id), node_id=i.node_id, service=i.service, cpu_cores=i.cpu_cores,
                              memory_mb=i.memory_mb, bandwidth_mbps=i.bandwidth_mbps, deployment=i.deployment_id,
                              dag_node=i.dag_node, shard=i.shard, replica=i.replica,
                              platform=platforms.get((i.deployment_id, i.dag_node), "any"),
                              migrating=i.id in migrating)
                 for i in rows]
    return ClusterView(nodes, instances, down=down, unavailable=unavailable)
