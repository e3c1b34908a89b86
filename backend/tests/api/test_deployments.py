"""Deployments through a real Celery worker: IOT-TS onto 3 x type1-smartnic, and a cluster too small."""

from collections import defaultdict

import pytest
from helpers import wait_for_job


CLUSTER = {"generator": "fattree", "servers": 3, "server_type": "type1-smartnic", "name": "rack1"}


@pytest.fixture
def iot_ts(client):
    client.post("/api/v1/clusters", json=CLUSTER)
    client.post("/api/v1/templates/iot-ts/instantiate", json={})


def _deploy(client, **overrides):
    r = client.post("/api/v1/deployments", json={"application": "iot-ts", "cluster": "rack1", **overrides})
    assert r.status_code == 202, r.json()
    return r.json()


def test_iot_ts_on_three_type1_servers(client, worker, iot_ts):
    accepted = _deploy(client)
    job = wait_for_job(client, accepted["job_id"])
    assert job["state"] == "succeeded", job["error"]
    assert job["progress"] == 1.0 and job["deployment_id"] == accepted["deployment_id"]
    instances = client.get(f"/api/v1/deployments/{accepted['deployment_id']}/placement",
                           params={"limit": 1000}).json()["items"]
    assert len(instances) == 108
    assert sum(i["role"] == "backup" for i in instances) == 54
    # Every backup is off its primary's server.
    servers = defaultdict(dict)
    for i in instances:
        servers[(i["dag_node"], i["shard"])][i["replica"]] = i["server"]
    assert all(len(set(by_replica.values())) == len(by_replica) == 2 for by_replica in servers.values())
    # sql is host-only (its state cannot migrate to the SmartNIC).
    assert {i["node_kind"] for i in instances if i["service"] == "sql"} == {"host"}
    # No node holds more than its capacity.
    nodes = client.get("/api/v1/clusters/rack1/nodes").json()["items"]
    for node in nodes:
        assert node["used_cores"] <= node["cores"] + 1e-9
        assert node["used_memory_mb"] <= node["memory_mb"]
        assert node["used_bandwidth_mbps"] <= node["bandwidth_mbps"]
    assert sum(n["instances"] for n in nodes) == 108
    deployment = client.get(f"/api/v1/deployments/{accepted['deployment_id']}").json()
    assert (deployment["state"], deployment["instances"], deployment["version"]) == ("placed", 108, 1)
    # No agent runs rack1's nodes: every instance is placed, none refused.
    placement = f"/api/v1/deployments/{accepted['deployment_id']}/placement"
    assert client.get(placement, params={"state": "placed", "limit": 1}).json()["total"] == 108
    assert client.get(placement, params={"state": "failed"}).json()["total"] == 0
    assert client.get(placement, params={"state": "broken"}).status_code == 422


def test_too_small_cluster_fails_naming_resource_and_microservice(client, worker):
    client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 2, "server_type": "wimpy",
                                          "name": "tiny"})
    client.post("/api/v1/templates/iot-ts/instantiate", json={})
    accepted = client.post("/api/v1/deployments", json={"application": "iot-ts", "cluster": "tiny"}).json()
    job = wait_for_job(client, accepted["job_id"])
    assert job["state"] == "failed"
    error = job["error"]
    assert error["code"] == "insufficient_capacity"
    assert "out of memory" in error["message"] and "sql" in error["message"]
    assert error["errors"][0]["resource"] == "memory_mb" and error["errors"][0]["field"] == "spec.nodes[1]"
    placement = client.get(f"/api/v1/deployments/{accepted['deployment_id']}/placement").json()
    assert placement["total"] == 0  # no partial placement stays behind
    assert client.get(f"/api/v1/deployments/{accepted['deployment_id']}").json()["state"] == "failed"


def test_second_deployment_sees_the_first_ones_reservations(client, worker):
    client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 3, "server_type": "type1-smartnic",
                                          "name": "rack1"})
    client.post("/api/v1/templates/iot-ts/instantiate", json={})  # 42 of the rack's 72 cores: fits once
    first = client.post("/api/v1/deployments", json={"application": "iot-ts", "cluster": "rack1"}).json()
    assert wait_for_job(client, first["job_id"])["state"] == "succeeded"
    second = client.post("/api/v1/deployments", json={"application": "iot-ts", "cluster": "rack1"}).json()
    job = wait_for_job(client, second["job_id"])
    assert job["state"] == "failed" and "out of" in job["error"]["message"]


def test_cluster_with_deployments_cannot_be_deleted(client, worker, iot_ts):
    accepted = _deploy(client)
    wait_for_job(client, accepted["job_id"])
    r = client.delete("/api/v1/clusters/rack1")
    assert r.status_code == 409 and r.json()["code"] == "cluster_in_use"
    assert client.delete(f"/api/v1/deployments/{accepted['deployment_id']}").status_code == 204
    assert client.delete("/api/v1/clusters/rack1").status_code == 204


@pytest.mark.parametrize("body,field", [
    ({"application": "ghost", "cluster": "rack1"}, "application"),
    ({"application": "iot-ts", "cluster": "ghost"}, "cluster"),
    ({"application": "iot-ts", "cluster": "rack1", "algorithm": "magic"}, "algorithm"),
    ({"application": "iot-ts", "cluster": "rack1", "version": 7}, "version"),
    ({"application": "iot-ts", "cluster": "rack1", "version": 0}, "version"),
    ({"application": "iot-ts", "cluster": "rack1", "colour": "red"}, "colour"),
])
def test_bad_deployment_request_names_the_field(client, iot_ts, body, field):
    r = client.post("/api/v1/deployments", json=body)
    assert r.status_code == 422
    assert field in [e["field"] for e in r.json()["errors"]]
    assert client.get("/api/v1/deployments").json()["total"] == 0
    assert client.get("/api/v1/jobs").json()["total"] == 0


def test_jobs_and_deployments_are_listed_and_paginated(client, worker, iot_ts):
    ids = [_deploy(client)["job_id"] for _ in range(3)]
    for job_id in ids:
        wait_for_job(client, job_id)
    jobs = client.get("/api/v1/jobs", params={"limit": 2}).json()
    assert jobs["total"] == 3 and len(jobs["items"]) == 2
    assert client.get("/api/v1/deployments", params={"cluster": "rack1"}).json()["total"] == 3
    assert client.get("/api/v1/deployments", params={"cluster": "other"}).json()["total"] == 0
