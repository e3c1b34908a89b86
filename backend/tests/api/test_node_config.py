"""Service configuration through the API: the catalogue serves each service's schema, a bad value is a 422
naming its field at save and at validate time, and a save fills in what a hand-drawn node leaves out."""

import re

import yaml

HAND_DRAWN = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "drawn"},
              "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0},
                                 {"id": "db", "service": "sql", "replicas": 0},
                                 {"id": "vpn", "service": "ipsec", "replicas": 0}],
                       "edges": [{"from": "gw", "to": "db"}]}}


def _configs(body: dict) -> dict:
    return {n["id"]: n.get("config") for n in body["spec"]["spec"]["nodes"]}


def test_the_catalogue_serves_each_services_config_schema(client):
    services = {s["name"]: s for s in client.get("/api/v1/catalog/services").json()}
    gateway = services["api_gateway"]["config_schema"]
    assert gateway["type"] == "object" and gateway["required"] == ["keys"]
    assert gateway["properties"]["rate"] == {"type": "number", "default": 100.0, "exclusiveMinimum": 0,
                                             "description": "Tokens a client's bucket regains per second (> 0)."}
    assert gateway["properties"]["keys"]["x-e3-generate"] == {"random_hex_bytes": 16}
    assert services["sql"]["config_schema"]["properties"]["columns"]["default"] == "id:int,value:real"
    assert services["recommend"]["config_schema"]["properties"] == {}


def test_a_bad_value_is_refused_at_save_and_at_validate_time_naming_its_field(client):
    bad = {**HAND_DRAWN, "spec": {**HAND_DRAWN["spec"], "nodes": [
        {"id": "gw", "service": "api_gateway", "config": {"keys": "k1", "burst": "0", "colour": "blue"}},
        {"id": "db", "service": "sql", "config": {"columns": "name:text"}}]}}
    r = client.post("/api/v1/applications", json=bad)
    assert r.status_code == 422
    found = {e["field"]: e for e in r.json()["errors"]}
    assert set(found) == {"spec.nodes[0].config.burst", "spec.nodes[0].config.colour", "spec.nodes[1].config.columns"}
    assert found["spec.nodes[0].config.burst"]["message"] == "must be at least 1, got 0"
    assert found["spec.nodes[0].config.colour"]["code"] == "unknown_field"
    assert client.get("/api/v1/applications/drawn").status_code == 404  # nothing stored
    report = client.post("/api/v1/applications/validate", json=bad).json()
    assert not report["valid"] and {e["field"] for e in report["errors"]} == set(found)
    assert client.put("/api/v1/applications/drawn", json=bad).status_code == 422


def test_a_save_fills_in_the_required_configuration_and_keeps_it_across_versions(client):
    assert client.post("/api/v1/applications/validate", json=HAND_DRAWN).json()["valid"]
    created = client.post("/api/v1/applications", json=HAND_DRAWN)
    assert created.status_code == 201, created.json()
    configs = _configs(created.json())
    assert re.fullmatch(r"[0-9a-f]{32}", configs["gw"]["keys"]) and set(configs["gw"]) == {"keys"}
    assert configs["db"] == {"columns": "id:int,value:real"}
    assert re.fullmatch(r"[0-9a-f]{32}", configs["vpn"]["key"]) and re.fullmatch(r"[0-9a-f]{40}",
                                                                                 configs["vpn"]["auth_key"])
    exported = yaml.safe_load(client.get("/api/v1/applications/drawn/export").text)
    assert exported["spec"]["nodes"][0]["config"] == {"keys": configs["gw"]["keys"]}  # visible to the user

    again = client.put("/api/v1/applications/drawn", json=HAND_DRAWN)  # the same document, applied again
    assert again.status_code == 200 and again.json()["latest_version"] == 1  # unchanged: the keys are kept
    mine = {**HAND_DRAWN, "spec": {**HAND_DRAWN["spec"], "nodes": [
        {"id": "gw", "service": "api_gateway", "replicas": 0, "config": {"keys": "my-key", "rate": "5"}},
        *HAND_DRAWN["spec"]["nodes"][1:]]}}
    changed = client.put("/api/v1/applications/drawn", json=mine).json()
    assert changed["latest_version"] == 2 and _configs(changed)["gw"] == {"keys": "my-key", "rate": "5"}
    assert _configs(changed)["vpn"] == configs["vpn"]  # a node the update left as it was keeps its keys


def test_an_instantiated_template_carries_the_configuration_its_agents_need(client):
    body = client.post("/api/v1/templates/iot-ts/instantiate", json={}).json()
    configs = _configs(body)
    assert re.fullmatch(r"[0-9a-f]{32}", configs["api"]["keys"]) and configs["sql"] == {"columns": "id:int,value:real"}
    assert configs["ema"] is None  # optional keys only: the service's own defaults apply
