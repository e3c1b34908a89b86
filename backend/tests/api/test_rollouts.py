"""Rolling a deployment to another application version through the API and a real worker, on a cluster no agent
runs: the old one is removed only when the new one is placed, and kept when the new one cannot be."""

import pytest
from helpers import wait_for_job

from e3.core.errors import Conflict
from e3.core.security import SYSTEM

CLUSTER = {"generator": "fattree", "servers": 3, "server_type": "type1-smartnic", "name": "rolls"}


def _app(shards: int) -> dict:
    return {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "roller"},
            "spec": {"nodes": [{"id": "kv", "service": "kvs", "shards": shards, "replicas": 1}], "edges": []}}


@pytest.fixture
def deployed(client, worker):
    assert client.post("/api/v1/clusters", json=CLUSTER).status_code == 201
    assert client.post("/api/v1/applications", json=_app(2)).status_code == 201
    r = client.post("/api/v1/deployments", json={"application": "roller", "cluster": "rolls"}).json()
    assert wait_for_job(client, r["job_id"])["state"] == "succeeded"
    return r["deployment_id"]


def test_a_rollout_replaces_the_deployment_with_the_new_version(client, deployed):
    assert client.put("/api/v1/applications/roller", json=_app(4)).status_code == 200
    r = client.post(f"/api/v1/deployments/{deployed}/rollout", json={"version": 2})
    assert r.status_code == 202, r.json()
    new_id = r.json()["deployment_id"]
    job = wait_for_job(client, r.json()["job_id"])
    assert job["state"] == "succeeded", job
    assert f"deployment {deployed} removed" in job["message"]
    assert client.get(f"/api/v1/deployments/{deployed}").status_code == 404
    new = client.get(f"/api/v1/deployments/{new_id}").json()
    assert (new["version"], new["instances"], new["status"], new["replaces"]) == (2, 8, "placed", None)
    kinds = [e["kind"] for e in client.get("/api/v1/events", params={"cluster": "rolls"}).json()["items"]]
    assert "deployment.rolled" in kinds


def test_a_version_that_does_not_fit_leaves_the_old_deployment_running(client, deployed):
    assert client.put("/api/v1/applications/roller", json=_app(400)).status_code == 200
    r = client.post(f"/api/v1/deployments/{deployed}/rollout", json={"version": 2})
    job = wait_for_job(client, r.json()["job_id"])
    assert job["state"] == "failed" and job["error"]["code"] == "insufficient_capacity"
    old = client.get(f"/api/v1/deployments/{deployed}").json()
    assert (old["version"], old["state"], old["instances"]) == (1, "placed", 4)
    listed = client.get("/api/v1/deployments", params={"application": "roller"}).json()["items"]
    assert [d["id"] for d in listed] == [deployed]  # nothing left of the version that did not fit


def test_refused_rollouts_say_why(client, deployed):
    missing = client.post(f"/api/v1/deployments/{deployed}/rollout", json={"version": 9})
    assert missing.status_code == 422
    assert missing.json()["errors"][0]["field"] == "version" and "has no version 9" in missing.json()["message"]
    same = client.post(f"/api/v1/deployments/{deployed}/rollout", json={"version": 1})
    assert same.status_code == 422 and "already runs roller v1" in same.json()["message"]
    unknown = client.post("/api/v1/deployments/00000000-0000-0000-0000-000000000000/rollout", json={"version": 2})
    assert unknown.status_code == 404
    assert client.get(f"/api/v1/deployments/{deployed}").json()["version"] == 1


def test_a_second_rollout_of_the_same_deployment_is_refused(client, deployed):
    import uuid

    from e3.core.db import session_scope
    from e3.services.rollouts import request_rollout

    assert client.put("/api/v1/applications/roller", json=_app(3)).status_code == 200
    with session_scope() as session:  # not committed: no worker ever sees these
        request_rollout(session, uuid.UUID(deployed), 2, SYSTEM)
        with pytest.raises(Conflict, match="already being rolled"):
            request_rollout(session, uuid.UUID(deployed), 2, SYSTEM)
        session.rollback()


def test_the_cli_rolls_and_fails_with_the_reason(e3, client, deployed):
    assert client.put("/api/v1/applications/roller", json=_app(400)).status_code == 200
    failed = e3("rollout", deployed, "--version", "2", "--wait", check=False)
    assert failed.returncode == 1 and "rollout of deployment" in failed.stderr and "failed" in failed.stderr
    assert client.put("/api/v1/applications/roller", json=_app(3)).status_code == 200
    done = e3("rollout", deployed, "--version", "3", "--wait", "--output", "json")
    assert '"succeeded"' in done.stdout


def test_a_new_version_undeployed_while_its_agents_answer_fails_the_rollout_and_keeps_the_old_one(
        client, deployed, monkeypatch):
    import uuid

    from e3.core.db import session_scope
    from e3.services import rollouts
    from e3.services.deployment_status import Status
    from e3.services.rollouts import request_rollout, run_rollout

    assert client.put("/api/v1/applications/roller", json=_app(3)).status_code == 200
    with session_scope() as session:
        new, job = request_rollout(session, uuid.UUID(deployed), 2, SYSTEM)
        new_id, job_id = new.id, job.id
    # As on agent-run nodes: still deploying, and meanwhile a person undeploys the new version.
    monkeypatch.setattr(rollouts, "_status", lambda session, _id: (Status("deploying", "0 of 2 running"), {}))
    with session_scope() as session:
        run_rollout(session, job_id, sleep=lambda _s: client.delete(f"/api/v1/deployments/{new_id}"))
    job = client.get(f"/api/v1/jobs/{job_id}").json()
    assert job["state"] == "failed" and job["error"]["code"] == "rollout_cancelled"
    assert client.get(f"/api/v1/deployments/{deployed}").json()["version"] == 1
