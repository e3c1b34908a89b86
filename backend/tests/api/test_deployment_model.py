"""The cost model at the measured load (GET /deployments/{id}/model): the dashboard's "model" figures evaluated at
the entry load it measures, its power charged to the application as the measured figure is, the knee beside it as
capacity; and its refusals. A real worker places the deployments."""

import pytest
from helpers import deploy_on_new_cluster, wait_for_job
from sqlalchemy import update

from e3.core.db import session_scope
from e3.models import ComputeNode

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "modelled"},
       "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0, "constraints": {"platform": "host"}},
                          {"id": "kv", "service": "kvs", "replicas": 0}],
                "edges": [{"from": "gw", "to": "kv"}]}}


@pytest.fixture
def deployment_id(client, worker):
    return deploy_on_new_cluster(client, "modelled", APP)


def _model(client, deployment_id, **query):
    got = client.get(f"/api/v1/deployments/{deployment_id}/model", params=query)
    assert got.status_code == 200, got.text
    return got.json()


def test_the_model_is_evaluated_at_the_load_asked_with_the_knee_as_its_capacity(client, deployment_id):
    knee = _model(client, deployment_id)
    assert knee["offered_rps"] is None and knee["source"] == "model"
    assert knee["throughput_rps"] == pytest.approx(knee["knee_rps"]) and not knee["saturated"]
    at_100 = _model(client, deployment_id, offered_rps=100)
    assert at_100["offered_rps"] == 100 and at_100["throughput_rps"] == pytest.approx(100)
    assert at_100["knee_rps"] == pytest.approx(knee["knee_rps"])  # the same placement's capacity
    assert at_100["joules_per_request"] == pytest.approx(at_100["power_watts"] / 100)
    # the idle watts are there whatever the load: a request costs far more at 100/s than at the knee
    assert at_100["joules_per_request"] > 10 * knee["joules_per_request"]
    assert 0 < at_100["power_watts"] <= at_100["servers_power_watts"]
    past = _model(client, deployment_id, offered_rps=knee["capacity_rps"] * 2)
    assert past["saturated"] and past["throughput_rps"] == pytest.approx(knee["capacity_rps"])
    assert past["avg_latency_ms"] is None  # unbounded


def test_a_second_deployment_on_the_same_nodes_takes_its_share_of_their_idle_watts(client, deployment_id):
    alone = _model(client, deployment_id, offered_rps=100)
    accepted = client.post("/api/v1/deployments", json={"application": "modelled", "cluster": "modelled"}).json()
    assert wait_for_job(client, accepted["job_id"])["state"] == "succeeded"

    def nodes(dep):
        return {i["node"] for i in client.get(f"/api/v1/deployments/{dep}/placement").json()["items"]}

    assert nodes(deployment_id) & nodes(accepted["deployment_id"])  # HCM packs the second beside the first
    shared = _model(client, deployment_id, offered_rps=100)
    assert shared["power_watts"] < alone["power_watts"]
    assert shared["servers_power_watts"] == pytest.approx(alone["servers_power_watts"])  # the servers' own draw


@pytest.mark.parametrize("query", ["offered_rps=0", "offered_rps=-5", "offered_rps=abc", "offered_rps=inf",
                                   "offered_rps=2e9"])
def test_a_bad_load_is_refused_naming_the_field(client, deployment_id, query):
    got = client.get(f"/api/v1/deployments/{deployment_id}/model?{query}")
    assert got.status_code == 422, got.text
    assert [e["field"] for e in got.json()["errors"]] == ["offered_rps"]


def test_an_unknown_deployment_is_404_and_one_without_a_placement_409(client, worker):
    missing = client.get("/api/v1/deployments/00000000-0000-0000-0000-000000000000/model")
    assert missing.status_code == 404
    too_big = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "too-big"},
               "spec": {"nodes": [{"id": "x", "service": "kvs", "shards": 500, "replicas": 0}], "edges": []}}
    assert client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 1, "server_type": "type1-smartnic",
                                                 "name": "tiny"}).status_code == 201
    assert client.post("/api/v1/applications", json=too_big).status_code == 201
    accepted = client.post("/api/v1/deployments", json={"application": "too-big", "cluster": "tiny"}).json()
    assert wait_for_job(client, accepted["job_id"])["state"] == "failed"
    refused = client.get(f"/api/v1/deployments/{accepted['deployment_id']}/model")
    assert refused.status_code == 409 and refused.json()["code"] == "not_placed"
    assert "failed" in refused.json()["message"]


def test_a_placement_with_an_instance_on_a_node_that_is_down_is_409_naming_it(client, deployment_id):
    item = client.get(f"/api/v1/deployments/{deployment_id}/placement").json()["items"][0]
    with session_scope() as session:
        session.execute(update(ComputeNode).where(ComputeNode.name == item["node"]).values(state="down"))
    refused = client.get(f"/api/v1/deployments/{deployment_id}/model", params={"offered_rps": 100})
    assert refused.status_code == 409 and refused.json()["code"] == "not_modelled", refused.text
    assert item["dag_node"] in refused.json()["message"]
