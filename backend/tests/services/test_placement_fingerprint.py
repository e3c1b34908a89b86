"""The live feed reads a cluster's metadata again only when its placement fingerprint changed
(services/cluster_read.py `placement_fingerprint`, live/hub.py): every change the metadata shows must change it."""

from helpers import deploy_on_new_cluster
from sqlalchemy import delete, select, update

from e3.core.db import session_scope
from e3.models import ComputeNode, Deployment, Instance
from e3.services.cluster_read import placement_fingerprint
from e3.services.clusters import get_cluster

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "fp"},
       "spec": {"nodes": [{"id": "kv", "service": "kvs", "shards": 2, "replicas": 1}], "edges": []}}


def _fingerprint() -> str:
    with session_scope() as session:
        return placement_fingerprint(session, get_cluster(session, "fp").id)


def _change(statement) -> None:
    with session_scope() as session:
        session.execute(statement)


def test_every_change_the_live_metadata_shows_changes_the_fingerprint(client, worker):
    deploy_on_new_cluster(client, "fp", APP)
    first = _fingerprint()
    assert _fingerprint() == first
    with session_scope() as session:
        primary = session.scalars(select(Instance).where(Instance.role == "primary").order_by(Instance.ordinal)).first()
        other = session.scalar(select(ComputeNode.id).where(ComputeNode.id != primary.node_id))
        primary_id, backup_node = primary.id, session.scalar(
            select(Instance.node_id).where(Instance.id != primary.id, Instance.shard == primary.shard))

    _change(update(ComputeNode).where(ComputeNode.id == other).values(state="down"))
    assert _fingerprint() == first  # a node's state comes from Redis, and changes often

    seen = {first}
    for change in (update(Instance).where(Instance.id == primary_id).values(node_id=other),  # a move
                   update(Instance).where(Instance.id == primary_id).values(role="backup"),  # a promotion's half
                   update(Instance).where(Instance.id == primary_id).values(cpu_cores=3.5),
                   update(ComputeNode).where(ComputeNode.id == other).values(name="renamed/host"),
                   delete(Instance).where(Instance.node_id == backup_node),
                   update(Deployment).values(state="deleting")):
        _change(change)
        now = _fingerprint()
        assert now not in seen, change
        seen.add(now)
