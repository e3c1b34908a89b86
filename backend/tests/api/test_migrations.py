"""Migration requests through the API with a real worker placing the deployment (no agents): the dry run's
prediction, and every refusal (unknown node, pinned platform, full node, fault domain, read-only token,
no agent, not running, already migrating) answered 4xx with nothing written. Execution against real
agents is in tests/integration/test_migration_local.py."""

import uuid

import pytest
from helpers import deploy_on_new_cluster
from sqlalchemy import func, select, update

from e3.core.db import session_scope
from e3.models import ComputeNode, Event, Instance, Migration

APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "mig"},
    "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0, "constraints": {"platform": "host"}},
                       {"id": "kv", "service": "kvs", "replicas": 1, "constraints": {"platform": "host"}},
                       {"id": "db", "service": "sql", "replicas": 0},
                       # fills the SmartNICs' memory (8 x 512 MB of 4 GB each): nothing more fits there
                       {"id": "fill", "service": "bm25", "shards": 24, "replicas": 0,
                        "constraints": {"platform": "smartnic"}}],
             "edges": [{"from": "gw", "to": "kv"}, {"from": "gw", "to": "db"}]},
}


@pytest.fixture
def placed(client, worker):
    deployment_id = deploy_on_new_cluster(client, "m3", APP)
    items = client.get(f"/api/v1/deployments/{deployment_id}/placement",
                       params={"limit": 1000}).json()["items"]
    nodes = {n["name"]: n for n in client.get("/api/v1/clusters/m3/nodes").json()["items"]}
    by = {(i["dag_node"], i["replica"]): i for i in items if i["shard"] == 0}
    return dict(by=by, nodes=nodes, deployment_id=deployment_id)


def _free_host(placed, *avoid_servers):
    return next(name for name, n in placed["nodes"].items()
                if n["kind"] == "host" and n["server"] not in avoid_servers)


def _nothing_written():
    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(Migration)) == 0
        assert session.scalar(select(func.count()).select_from(Event).where(Event.kind.startswith("migration"))) == 0


def _post(client, instance_id, **body):
    return client.post(f"/api/v1/instances/{instance_id}/migrations", json=body)


def test_a_dry_run_predicts_latency_and_joules_per_request_from_the_model_and_writes_nothing(client, placed):
    gw = placed["by"][("gw", 0)]
    target = _free_host(placed, gw["server"])
    r = _post(client, gw["id"], target_node=target, dry_run=True)
    assert r.status_code == 200, r.json()
    answer = r.json()
    assert answer["dry_run"] is True and answer["migration_id"] is None
    assert (answer["source_node"], answer["target_node"], answer["service"]) == (gw["node"], target, "api_gateway")
    p = answer["prediction"]
    assert p["source"] == "model" and p["offered_rps"] > 0
    for side in ("before", "after"):
        assert p[side]["avg_latency_ms"] > 0 and p[side]["joules_per_request"] > 0
    assert p["change"]["joules_per_request"] == pytest.approx(p["after"]["joules_per_request"]
                                                              - p["before"]["joules_per_request"])
    assert p["level"] == 3  # a host of another server in the rack
    assert p["change"]["avg_latency_ms"] == pytest.approx(p["after"]["avg_latency_ms"] - p["before"]["avg_latency_ms"])
    assert p["after"]["avg_latency_ms"] != p["before"]["avg_latency_ms"]  # the gateway's edges change level
    _nothing_written()
    assert client.get("/api/v1/migrations").json()["total"] == 0


@pytest.mark.parametrize("case, status, code, field", [
    ("unknown node", 422, "not_found", "target_node"),
    ("same node", 422, "same_node", "target_node"),
    ("sql onto a SmartNIC", 422, "platform_pinned", "target_node"),
    ("full SmartNIC", 422, "insufficient_capacity", "target_node"),
    ("backup's server", 422, "fault_domain", "target_node"),
])
def test_a_migration_that_cannot_be_done_is_refused_naming_the_reason(client, placed, case, status, code, field):
    by, nodes = placed["by"], placed["nodes"]
    nic = next(name for name, n in nodes.items() if n["kind"] == "smartnic")
    instance, target = {
        "unknown node": (by[("gw", 0)], "nowhere/host"),
        "same node": (by[("gw", 0)], by[("gw", 0)]["node"]),
        "sql onto a SmartNIC": (by[("db", 0)], nic),
        "full SmartNIC": (by[("gw", 0)], nic),
        "backup's server": (by[("kv", 0)], by[("kv", 1)]["node"]),
    }[case]
    if case == "full SmartNIC":  # a gateway pinned to hosts would be refused for its platform first
        instance = by[("fill", 0)]
        target = next(name for name, n in nodes.items() if n["kind"] == "smartnic" and name != instance["node"])
    for dry_run in (True, False):
        r = _post(client, instance["id"], target_node=target, dry_run=dry_run)
        assert r.status_code == status, (case, r.json())
        body = r.json()
        assert body["errors"][0]["field"] == field and body["errors"][0]["code"] == code, body
        assert target.split("/")[0] in body["message"] or case == "same node", body
    _nothing_written()


def test_a_read_only_token_and_an_unknown_instance_are_refused(client, placed, make_token):
    gw = placed["by"][("gw", 0)]
    target = _free_host(placed, gw["server"])
    r = client.post(f"/api/v1/instances/{gw['id']}/migrations", json={"target_node": target},
                    headers={"Authorization": f"Bearer {make_token('read')}"})
    assert r.status_code == 403 and "deploy" in r.json()["message"]
    r = _post(client, uuid.uuid4(), target_node=target)
    assert r.status_code == 404
    r = _post(client, gw["id"], target_node=target, surprise=1)
    assert r.status_code == 422 and r.json()["errors"][0]["field"].endswith("surprise")
    _nothing_written()


def test_a_real_migration_needs_an_agent_on_the_target_a_running_instance_and_none_under_way(client, placed):
    gw = placed["by"][("gw", 0)]
    target = _free_host(placed, gw["server"])
    r = _post(client, gw["id"], target_node=target)
    assert r.status_code == 422 and r.json()["code"] == "no_agent", r.json()
    with session_scope() as session:  # as if agents ran the nodes, but the instance is not deployed yet
        session.execute(update(ComputeNode).values(agent_id="a", address="127.0.0.1", control_address="127.0.0.1"))
    r = _post(client, gw["id"], target_node=target)
    assert r.status_code == 409 and r.json()["code"] == "not_running", r.json()
    _nothing_written()
    with session_scope() as session:
        session.execute(update(Instance).where(Instance.id == uuid.UUID(gw["id"])).values(state="running"))
        node_ids = dict(session.execute(select(ComputeNode.name, ComputeNode.id)).all())
        session.add(Migration(instance_id=uuid.UUID(gw["id"]), source_node_id=node_ids[gw["node"]],
                              target_node_id=node_ids[target], reason="manual", state="running", steps=[]))
    r = _post(client, gw["id"], target_node=target)
    assert r.status_code == 409 and r.json()["code"] == "already_migrating", r.json()
    listed = client.get("/api/v1/migrations", params={"state": "running"}).json()
    assert listed["total"] == 1 and listed["items"][0]["target_node"] == target
    assert client.get("/api/v1/migrations", params={"state": "nonsense"}).status_code == 422
    # the deployment cannot be deleted under a migration
    r = client.delete(f"/api/v1/deployments/{placed['deployment_id']}")
    assert r.status_code == 409 and r.json()["code"] == "migration_under_way"


def test_events_are_read_in_order_after_a_cursor_filtered_by_kind(client, placed):
    first = client.get("/api/v1/events", params={"limit": 2}).json()
    assert len(first["items"]) == 2 and first["next_since"] == first["items"][-1]["id"]
    rest = client.get("/api/v1/events", params={"since": first["next_since"], "limit": 1000}).json()
    ids = [e["id"] for e in first["items"] + rest["items"]]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    placed_events = client.get("/api/v1/events", params={"kind": "deployment.placed"}).json()["items"]
    assert [e["subject"] for e in placed_events] == [f"deployment/{placed['deployment_id']}"]
    assert client.get("/api/v1/events", params={"kind": "deployment."}).json()["items"]
    assert client.get("/api/v1/events", params={"cluster": "nope"}).status_code == 422
    empty = client.get("/api/v1/events", params={"since": ids[-1]}).json()
    assert empty == {"items": [], "next_since": ids[-1]}


def test_events_carry_their_application_and_the_newest_are_read_with_last(client, placed):
    (placed_event,) = client.get("/api/v1/events", params={"kind": "deployment.placed"}).json()["items"]
    assert placed_event["application"] == placed_event["data"]["application"] == "mig"
    everything = client.get("/api/v1/events", params={"limit": 1000}).json()["items"]
    newest = client.get("/api/v1/events", params={"last": 2}).json()
    assert [e["id"] for e in newest["items"]] == [e["id"] for e in everything[-2:]]  # oldest first
    assert newest["next_since"] == everything[-1]["id"]
    since = client.get("/api/v1/events", params={"last": 2, "since": everything[0]["id"], "limit": 1000}).json()
    assert [e["id"] for e in since["items"]] == [e["id"] for e in everything[1:]]  # since wins
    mine = client.get("/api/v1/events", params={"application": "mig", "limit": 1000}).json()["items"]
    assert placed_event["id"] in [e["id"] for e in mine] and {e["application"] for e in mine} == {"mig"}
    assert client.get("/api/v1/events", params={"application": "other"}).json()["items"] == []
