"""When the job queue (Redis, Celery's broker) cannot take the work: a 503 that says what happened to it, and
the deployment and its job recorded as failed, never left queued for a worker that will not come."""

from kombu.exceptions import OperationalError

CLUSTER = {"generator": "fattree", "servers": 3, "server_type": "type1-smartnic", "name": "noqueue"}


def test_a_deployment_the_queue_refuses_is_answered_503_and_marked_failed(client, monkeypatch):
    from e3.core.celery_app import celery_app  # not at collection: the app binds the broker URL set by the fixtures

    client.post("/api/v1/clusters", json=CLUSTER)
    client.post("/api/v1/templates/iot-ts/instantiate", json={})

    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(celery_app, "send_task", broker_down)
    r = client.post("/api/v1/deployments", json={"application": "iot-ts", "cluster": "noqueue"})
    assert r.status_code == 503, r.json()
    body = r.json()
    assert body["code"] == "queue_unavailable"
    assert "marked failed" in body["message"]

    monkeypatch.undo()  # what was stored is read back through the API as usual
    deployments = client.get("/api/v1/deployments", params={"cluster": "noqueue"}).json()["items"]
    assert [d["state"] for d in deployments] == ["failed"]
    jobs = client.get("/api/v1/jobs", params={"state": "failed"}).json()["items"]
    job = next(j for j in jobs if j.get("deployment_id") == deployments[0]["id"])
    assert job["error"]["code"] == "queue_unavailable"
    assert "could not reach the job queue (Redis)" in job["error"]["message"]
