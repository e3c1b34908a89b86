"""GET /events?deployment=: one deployment's events only, not those of another deployment of the same
application on the same cluster (the deployment page reads its events this way)."""

import uuid

from helpers import deploy_on_new_cluster, wait_for_job
from sqlalchemy import select

from e3.core.db import session_scope
from e3.models import Cluster
from e3.services import events

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "twice"},
       "spec": {"nodes": [{"id": "kv", "service": "kvs", "replicas": 0}], "edges": []}}


def _instance_of(client, deployment_id: str) -> dict:
    return client.get(f"/api/v1/deployments/{deployment_id}/placement").json()["items"][0]


def test_a_deployments_events_are_its_own_and_its_instances_not_its_twins(client, worker):
    first = deploy_on_new_cluster(client, "ev1", APP)
    accepted = client.post("/api/v1/deployments", json={"application": "twice", "cluster": "ev1"}).json()
    assert wait_for_job(client, accepted["job_id"])["state"] == "succeeded"
    second = accepted["deployment_id"]
    mine, theirs = _instance_of(client, first), _instance_of(client, second)
    with session_scope() as session:  # what the agents' answers and a migration record about each instance
        cluster_id = session.scalar(select(Cluster.id).where(Cluster.name == "ev1"))
        for instance in (mine, theirs):
            events.emit(session, "command.nack", f"node/{instance['node_id']}", cluster_id, application="twice",
                        instance_id=instance["id"], error_code="bad_config")
            events.emit(session, "migration.requested", f"instance/{instance['id']}", cluster_id,
                        application="twice")

    items = client.get("/api/v1/events", params={"deployment": first, "limit": 1000}).json()["items"]
    assert [(e["kind"], e["subject"]) for e in items] == [
        ("deployment.placed", f"deployment/{first}"),
        ("command.nack", f"node/{mine['node_id']}"),
        ("migration.requested", f"instance/{mine['id']}")]
    assert client.get("/api/v1/events", params={"deployment": str(uuid.uuid4())}).json()["items"] == []
    refused = client.get("/api/v1/events", params={"deployment": "not-an-id"})
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"].endswith("deployment")
