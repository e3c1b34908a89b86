"""Applications: JSON and YAML specs, immutable versions, ETag/If-Match, export, templates, bad input."""

import json

import pytest
import yaml

from e3 import catalog

YAML = {"Content-Type": "application/yaml"}


def _doc(name="shop", nodes=None, edges=None):
    return {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": name},
            "spec": {"nodes": nodes if nodes is not None else [{"id": "gw", "service": "api_gateway", "shards": 2},
                                        {"id": "db", "service": "kvs", "shards": 4, "replicas": 2}],
                     "edges": edges if edges is not None else [{"from": "gw", "to": "db"}]}}


def test_create_from_json_fills_defaults_and_counts_instances(client):
    r = client.post("/api/v1/applications", json=_doc())
    assert r.status_code == 201, r.json()
    body = r.json()
    assert body["latest_version"] == 1 and body["instances"] == 2 * 2 + 4 * 3
    assert r.headers["etag"] == body["etag"]
    gw = body["spec"]["spec"]["nodes"][0]
    assert (gw["replicas"], gw["request_bytes"], gw["constraints"]["platform"]) == (1, 512, "any")


def test_create_from_yaml(client):
    r = client.post("/api/v1/applications", content=catalog.template_yaml("nfv-fin").encode(), headers=YAML)
    assert r.status_code == 201 and r.json()["instances"] == 72


def test_update_makes_a_new_immutable_version(client):
    v1 = client.post("/api/v1/applications", json=_doc()).json()
    changed = _doc()
    changed["spec"]["nodes"][0]["shards"] = 3
    r = client.put("/api/v1/applications/shop", json=changed, headers={"If-Match": v1["etag"]})
    assert r.status_code == 200 and r.json()["latest_version"] == 2
    versions = client.get("/api/v1/applications/shop/versions").json()
    assert [v["version"] for v in versions["items"]] == [2, 1]
    assert versions["items"][1]["spec"]["spec"]["nodes"][0]["shards"] == 2  # v1 untouched
    same = client.put("/api/v1/applications/shop", json=changed)
    assert same.json()["latest_version"] == 2  # unchanged spec adds no version


def test_stale_etag_is_412_and_changes_nothing(client):
    v1 = client.post("/api/v1/applications", json=_doc()).json()
    first = _doc()
    first["spec"]["nodes"][0]["shards"] = 3
    assert client.put("/api/v1/applications/shop", json=first, headers={"If-Match": v1["etag"]}).status_code == 200
    second = _doc()
    second["spec"]["nodes"][0]["shards"] = 5
    r = client.put("/api/v1/applications/shop", json=second, headers={"If-Match": v1["etag"]})
    assert r.status_code == 412 and r.json()["code"] == "etag_mismatch"
    current = client.get("/api/v1/applications/shop").json()
    assert current["latest_version"] == 2 and current["spec"]["spec"]["nodes"][0]["shards"] == 3


def test_put_creates_when_absent_and_checks_the_name(client):
    assert client.put("/api/v1/applications/shop", json=_doc()).status_code == 201
    r = client.put("/api/v1/applications/other", json=_doc())
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "metadata.name"


def test_create_twice_is_a_conflict(client):
    client.post("/api/v1/applications", json=_doc())
    assert client.post("/api/v1/applications", json=_doc()).status_code == 409


def test_export_round_trips_as_yaml(client):
    client.post("/api/v1/applications", content=catalog.template_yaml("iot-ts").encode(), headers=YAML)
    r = client.get("/api/v1/applications/iot-ts/export")
    assert r.headers["content-type"].startswith("application/yaml")
    assert r.text.startswith("apiVersion: e3/v1\nkind: Application\nmetadata:")
    exported = yaml.safe_load(r.text)
    assert exported == client.get("/api/v1/applications/iot-ts").json()["spec"]
    client.delete("/api/v1/applications/iot-ts")
    assert client.post("/api/v1/applications", content=r.content, headers=YAML).json()["instances"] == 108


def test_list_is_paginated(client):
    for name in ("a1", "a2", "a3"):
        client.post("/api/v1/applications", json=_doc(name))
    page = client.get("/api/v1/applications", params={"limit": 2}).json()
    assert page["total"] == 3 and [a["name"] for a in page["items"]] == ["a1", "a2"]


def test_templates_are_the_papers_eight_applications(client):
    items = client.get("/api/v1/templates").json()["items"]
    assert {t["name"]: t["instances"] for t in items} == {
        "nfv-fin": 72, "nfv-din": 60, "nfv-ifid": 84, "rta-ptc": 60, "rta-sf": 96, "rta-shm": 84,
        "iot-dh": 108, "iot-ts": 108}
    r = client.post("/api/v1/templates/rta-sf/instantiate", json={"name": "spam"})
    assert r.status_code == 201 and r.json()["name"] == "spam" and r.json()["instances"] == 96
    assert client.post("/api/v1/templates/nope/instantiate", json={}).status_code == 404


def test_catalogue_endpoints(client):
    services = {s["name"]: s for s in client.get("/api/v1/catalog/services").json()}
    assert len(services) == 16
    assert services["sql"]["platforms"] == ["host"] and not services["sql"]["suits_smartnic"]
    assert services["ipsec"]["suits_smartnic"] and services["ipsec"]["calibration"]["smartnic"]["rps"] == 1851100
    types = {t["name"]: t for t in client.get("/api/v1/catalog/server-types").json()}
    assert types["type2-smartnic"]["smartnics"] == 4 and types["beefy"]["idle_watts"] == 83


# --- bad input: each a 4xx naming the field, and nothing stored ---------------------------------

def _bad(**changes):
    doc = _doc()
    for path, value in changes.items():
        target = doc
        keys = path.split(".")
        for k in keys[:-1]:
            target = target[int(k)] if k.isdigit() else target[k]
        target[int(keys[-1]) if keys[-1].isdigit() else keys[-1]] = value
    return doc


CYCLE = _doc(nodes=[{"id": "a", "service": "kvs", "shards": 1}, {"id": "b", "service": "kvs", "shards": 1},
                    {"id": "c", "service": "kvs", "shards": 1}],
             edges=[{"from": "a", "to": "b"}, {"from": "b", "to": "c"}, {"from": "c", "to": "a"}])

BAD_DOCS = {
    "cycle": (CYCLE, "spec.edges", "a -> b -> c -> a"),
    "self_loop": (_doc(edges=[{"from": "gw", "to": "gw"}]), "spec.edges[0]", "gw"),
    "unknown_edge_node": (_doc(edges=[{"from": "gw", "to": "ghost"}]), "spec.edges[0].to", "ghost"),
    "duplicate_ids": (_doc(nodes=[{"id": "gw", "service": "kvs", "shards": 1},
                                  {"id": "gw", "service": "kvs", "shards": 1}], edges=[]), "spec.nodes[1].id", "gw"),
    "unknown_service": (_bad(**{"spec.nodes.0.service": "blockchain"}), "spec.nodes[0].service", "api_gateway"),
    "zero_shards": (_bad(**{"spec.nodes.0.shards": 0}), "spec.nodes[0].shards", ""),
    "negative_replicas": (_bad(**{"spec.nodes.0.replicas": -1}), "spec.nodes[0].replicas", ""),
    "fractional_shards": (_bad(**{"spec.nodes.0.shards": 1.5}), "spec.nodes[0].shards", ""),
    "huge_shards": (_bad(**{"spec.nodes.0.shards": 1001}), "spec.nodes[0].shards", ""),
    "sql_on_smartnic": (_doc(nodes=[{"id": "db", "service": "sql", "shards": 1,
                                     "constraints": {"platform": "smartnic"}}], edges=[]),
                        "spec.nodes[0].constraints.platform", "host"),
    "unknown_platform": (_bad(**{"spec.nodes.0.constraints": {"platform": "fpga"}}),
                         "spec.nodes[0].constraints.platform", "smartnic"),
    "bad_name": (_bad(**{"metadata.name": "Bad_Name!"}), "metadata.name", ""),
    "long_name": (_bad(**{"metadata.name": "a" * 64}), "metadata.name", ""),
    "no_nodes": (_doc(nodes=[], edges=[]), "spec.nodes", ""),
    "wrong_api_version": (_bad(apiVersion="e3/v2"), "apiVersion", "e3/v1"),
    "wrong_kind": (_bad(kind="Cluster"), "kind", "Application"),
}


@pytest.fixture
def existing(client):
    """An application already stored, which no bad request may touch."""
    return client.post("/api/v1/applications", json=_doc("keep")).json()


def _nothing_changed(client, existing):
    apps = client.get("/api/v1/applications").json()
    assert apps["total"] == 1
    assert apps["items"][0]["etag"] == existing["etag"]


@pytest.mark.parametrize("case", sorted(BAD_DOCS))
def test_bad_dag_is_422_naming_the_field(client, existing, case):
    doc, field, hint = BAD_DOCS[case]
    r = client.post("/api/v1/applications", json=doc)
    assert r.status_code == 422, r.json()
    fields = [e["field"] for e in r.json()["errors"]]
    assert field in fields, r.json()
    assert hint in json.dumps(r.json())
    if field != "metadata.name":  # the same fault as an update of the stored application changes nothing
        doc = json.loads(json.dumps(doc))
        doc["metadata"]["name"] = "keep"
        assert client.put("/api/v1/applications/keep", json=doc).status_code == 422
    _nothing_changed(client, existing)


def test_body_over_one_mebibyte_is_413(client, existing):
    r = client.post("/api/v1/applications", content=b"{" + b" " * (1024 * 1024) + b"}",
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "payload_too_large"
    _nothing_changed(client, existing)


def test_yaml_alias_bomb_is_refused_without_expanding(client, existing):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8))
    r = client.post("/api/v1/applications", content=bomb.encode(), headers=YAML)
    assert r.status_code == 400 and r.json()["code"] == "yaml_alias_forbidden"
    _nothing_changed(client, existing)


@pytest.mark.parametrize("body,code", [
    (b"apiVersion: e3/v1\nkind: [unclosed", "malformed_yaml"),
    (b"!!python/object/apply:os.system ['true']", "malformed_yaml"),
])
def test_malformed_or_hostile_yaml(client, existing, body, code):
    r = client.post("/api/v1/applications", content=body, headers=YAML)
    assert r.status_code == 400, r.json()
    _nothing_changed(client, existing)


def test_malformed_json(client, existing):
    r = client.post("/api/v1/applications", content=b'{"apiVersion": ', headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "malformed_json"
    _nothing_changed(client, existing)


def test_pathologically_nested_json_is_refused_before_parsing(client, existing):
    r = client.post("/api/v1/applications", content=b"[" * 500_000 + b"]" * 500_000,
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "too_deeply_nested"
    # Also on routes whose JSON FastAPI parses itself.
    r = client.post("/api/v1/deployments", content=b'{"a":' * 100 + b"1" + b"}" * 100,
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["code"] == "too_deeply_nested"
    _nothing_changed(client, existing)


def test_unsupported_content_type(client):
    r = client.post("/api/v1/applications", content=b"<dag/>", headers={"Content-Type": "application/xml"})
    assert r.status_code == 415 and "application/yaml" in r.json()["message"]


def test_an_older_version_can_be_deleted_unless_deployed_or_latest(client, worker):
    from helpers import wait_for_job

    client.post("/api/v1/applications", json=_doc())
    for shards in (3, 4):
        changed = _doc()
        changed["spec"]["nodes"][0]["shards"] = shards
        assert client.put("/api/v1/applications/shop", json=changed).status_code == 200
    client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 3, "server_type": "type1-smartnic",
                                          "name": "vers"})
    job = client.post("/api/v1/deployments", json={"application": "shop", "version": 1, "cluster": "vers"}).json()
    wait_for_job(client, job["job_id"])

    latest = client.delete("/api/v1/applications/shop/versions/3")
    assert latest.status_code == 409 and latest.json()["code"] == "latest_version"
    in_use = client.delete("/api/v1/applications/shop/versions/1")
    assert in_use.status_code == 409 and job["deployment_id"] in in_use.json()["message"]
    assert client.delete("/api/v1/applications/shop/versions/2").status_code == 204
    assert client.delete("/api/v1/applications/shop/versions/2").status_code == 404
    left = client.get("/api/v1/applications/shop/versions").json()["items"]
    assert [v["version"] for v in left] == [3, 1]  # newest first
    actions = [e["action"] for e in client.get("/api/v1/audit").json()["items"]]
    assert "application.delete_version" in actions
