"""What-if placement previews (nothing stored) and deployments with each algorithm."""

import pytest
from helpers import wait_for_job

from e3 import catalog

RACK = {"generator": "fattree", "servers": 3, "server_type": "type1-smartnic", "name": "rack1"}


@pytest.fixture
def rack(client):
    client.post("/api/v1/clusters", json=RACK)


def _all_figures_modelled(obj) -> bool:
    """Every object holding figures says source: model, all the way down."""
    if isinstance(obj, dict):
        figures = any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in obj.values())
        return (not figures or obj.get("source") == "model") and all(_all_figures_modelled(v) for v in obj.values()
                                                                      if isinstance(v, (dict, list)))
    if isinstance(obj, list):
        return all(_all_figures_modelled(v) for v in obj)
    return True


def test_preview_compares_algorithms_side_by_side_and_stores_nothing(client, rack):
    r = client.post("/api/v1/placements/preview", json={
        "cluster": "rack1", "spec": catalog.template("nfv-fin"), "algorithms": ["hcm", "first_fit", "random"],
        "include_assignments": True})
    assert r.status_code == 200, r.json()
    body = r.json()
    assert body["instances"] == 72 and body["baseline"] == "hcm"
    results = {x["algorithm"]: x for x in body["results"]}
    assert set(results) == {"hcm", "first_fit", "random"}
    for res in results.values():
        assert res["placed"] and res["runtime_ms"] >= 0
        assert len(res["assignments"]) == 72
        p = res["prediction"]
        assert p["source"] == "model"
        assert p["requests_per_joule"] > 0 and p["avg_latency_ms"] > 0 and p["power_watts"] > 0
        assert _all_figures_modelled(p)
    # NFV services suit the SmartNIC (Table 1): HCM puts them there, first-fit starts on hosts.
    assert results["hcm"]["summary"]["instances_on_smartnic"] > results["first_fit"]["summary"]["instances_on_smartnic"]
    rows = {row["name"]: row for row in body["comparison"]["rows"]}
    assert rows["hcm"]["requests_per_joule_ratio"] == 1.0
    assert rows["first_fit"]["requests_per_joule_ratio"] < 1.0
    assert client.get("/api/v1/deployments").json()["total"] == 0
    nodes = client.get("/api/v1/clusters/rack1/nodes").json()["items"]
    assert all(n["instances"] == 0 for n in nodes)


def test_preview_of_a_stored_application_counts_existing_load(client, rack, worker):
    client.post("/api/v1/templates/iot-ts/instantiate", json={})
    first = client.post("/api/v1/deployments", json={"application": "iot-ts", "cluster": "rack1"}).json()
    assert wait_for_job(client, first["job_id"])["state"] == "succeeded"
    r = client.post("/api/v1/placements/preview", json={"cluster": "rack1", "application": "iot-ts",
                                                        "algorithms": ["hcm", "first_fit"]})
    results = {x["algorithm"]: x for x in r.json()["results"]}
    assert not results["first_fit"]["placed"]  # the rack holds only one IOT-TS
    assert results["first_fit"]["error"]["code"] == "insufficient_capacity"
    assert "out of" in results["first_fit"]["error"]["message"]


@pytest.mark.parametrize("body,field", [
    ({"cluster": "rack1", "spec": {}, "algorithms": ["hcm", "magic"]}, "algorithms[1]"),
    ({"cluster": "rack1", "algorithms": ["hcm"]}, "application"),
    ({"cluster": "rack1", "application": "x", "spec": {}, "algorithms": ["hcm"]}, "application"),
    ({"cluster": "rack1", "spec": {"kind": "Application"}, "algorithms": ["hcm"]}, "spec.apiVersion"),
    ({"cluster": "rack1", "application": "iot-ts", "ilp_time_limit_s": 0}, "ilp_time_limit_s"),
])
def test_bad_preview_requests_name_the_field(client, rack, body, field):
    client.post("/api/v1/templates/iot-ts/instantiate", json={})
    r = client.post("/api/v1/placements/preview", json=body)
    assert r.status_code == 422, r.json()
    assert field in [e["field"] for e in r.json()["errors"]]


def test_preview_needs_a_token_and_read_is_enough(anon_client, make_token, rack):
    body = {"cluster": "rack1", "spec": catalog.template("nfv-din"), "algorithms": ["first_fit"]}
    assert anon_client.post("/api/v1/placements/preview", json=body).status_code == 401
    read = {"Authorization": f"Bearer {make_token('read')}"}
    assert anon_client.post("/api/v1/placements/preview", json=body, headers=read).status_code == 200


def test_hcm_is_the_default_and_the_job_reports_its_runtime(client, rack, worker):
    client.post("/api/v1/templates/iot-ts/instantiate", json={})
    accepted = client.post("/api/v1/deployments", json={"application": "iot-ts", "cluster": "rack1"}).json()
    job = wait_for_job(client, accepted["job_id"])
    assert job["state"] == "succeeded", job["error"]
    assert job["result"]["algorithm"] == "hcm" and job["result"]["runtime_ms"] > 0
    assert job["result"]["instances"] == 108
    deployment = client.get(f"/api/v1/deployments/{accepted['deployment_id']}").json()
    assert deployment["algorithm"] == "hcm" and deployment["prediction"]["source"] == "model"
    placement = client.get(f"/api/v1/deployments/{accepted['deployment_id']}/placement",
                           params={"limit": 1000}).json()["items"]
    assert {i["node_kind"] for i in placement if i["service"] == "sql"} == {"host"}


def test_anti_affinity_puts_each_dag_nodes_shards_on_distinct_servers(client, worker):
    client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 6, "server_type": "type1-smartnic",
                                          "name": "six"})
    doc = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "spread"},
           "spec": {"nodes": [{"id": "kv", "service": "kvs", "shards": 3, "replicas": 1}], "edges": []}}
    client.post("/api/v1/applications", json=doc)
    def servers_used(anti_affinity):
        preview = client.post("/api/v1/placements/preview", json={
            "cluster": "six", "application": "spread", "algorithms": ["hcm"], "anti_affinity": anti_affinity})
        return preview.json()["results"][0]["summary"]["servers_used"]

    assert servers_used(False) < 6 and servers_used(True) == 6
    accepted = client.post("/api/v1/deployments", json={"application": "spread", "cluster": "six",
                                                        "anti_affinity": True}).json()
    assert wait_for_job(client, accepted["job_id"])["state"] == "succeeded"
    placement = client.get(f"/api/v1/deployments/{accepted['deployment_id']}/placement").json()["items"]
    assert len({i["server"] for i in placement}) == 6  # 3 shards x 2 replicas, each on its own server
    assert client.get(f"/api/v1/deployments/{accepted['deployment_id']}").json()["anti_affinity"] is True


def test_each_result_says_what_its_algorithm_optimises_and_what_optimal_means(client, rack):
    r = client.post("/api/v1/placements/preview", json={
        "cluster": "rack1", "spec": catalog.template("nfv-fin"), "algorithms": ["ilp", "first_fit"],
        "ilp_time_limit_s": 5})
    results = {x["algorithm"]: x for x in r.json()["results"]}
    assert "interference" in results["ilp"]["objective"] and results["first_fit"]["objective"].startswith("none")
    assert results["first_fit"]["optimality"] == "a heuristic: no claim of optimality"
    ilp = results["ilp"]
    expected = ("optimal for its own objective (not for joules or latency)" if ilp["optimal"] else
                "stopped at its time cap or solved an approximation: the best placement found so far")
    assert ilp["optimality"] == expected
