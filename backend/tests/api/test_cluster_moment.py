"""The cluster at a past moment (GET /clusters/{name}/moment, replay): the placement as the instance history
recorded it (a move, a deployment deleted since), node states from their events, the figures of the seconds
before the moment, and the refusals. A real worker places the deployment; heartbeats go through the controller's
intake into the rollups."""

import time
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from helpers import deploy_on_new_cluster, insert_rollups, store_heartbeats
from sqlalchemy import update

from e3.core.db import session_scope
from e3.models import ComputeNode, Instance
from e3.rpc.pb import agent_pb2
from e3.services.agents import set_node_state

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "replayed"},
       "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0, "constraints": {"platform": "host"}},
                          {"id": "kv", "service": "kvs", "replicas": 0}],
                "edges": [{"from": "gw", "to": "kv"}]}}


def _now() -> datetime:
    time.sleep(0.05)  # moments on either side of a change are apart
    now = datetime.now(timezone.utc)
    time.sleep(0.05)
    return now


def _moment(client, at: datetime, cluster: str = "replayed") -> dict:
    got = client.get(f"/api/v1/clusters/{cluster}/moment", params={"at": at.isoformat()})
    assert got.status_code == 200, got.text
    return got.json()


def _placement(moment: dict) -> dict[str, str]:
    """DAG node → the name of the node its instance was on."""
    layout = moment["layout"]
    return {dag: layout["nodes"][node]["name"] for dag, node in zip(layout["instances"]["dag_node"],
                                                                   layout["instances"]["node"])}


def _state(moment: dict, name: str) -> str:
    return next(n["state"] for n in moment["layout"]["nodes"] if n["name"] == name)


@pytest.fixture
def history(client, worker):
    before = datetime.now(timezone.utc)
    deployment = deploy_on_new_cluster(client, "replayed", APP)
    placed = {i["dag_node"]: i for i in client.get(f"/api/v1/deployments/{deployment}/placement").json()["items"]}
    kv = placed["kv"]
    nodes = client.get("/api/v1/clusters/replayed/nodes", params={"limit": 100}).json()["items"]
    target = next(n for n in nodes if n["kind"] == kv["node_kind"] and n["id"] not in
                  {placed["gw"]["node_id"], kv["node_id"]})
    before_move = _now()
    with session_scope() as session:  # the move as the migration runner's switch writes it
        session.execute(update(Instance).where(Instance.id == uuid.UUID(kv["id"]))
                        .values(node_id=uuid.UUID(target["id"])))
    after_move = _now()
    with session_scope() as session:
        set_node_state(session, uuid.UUID(kv["node_id"]), "down")
    after_down = _now()
    return dict(deployment=deployment, gw=placed["gw"], kv=kv, target=target, before=before,
                before_move=before_move, after_move=after_move, after_down=after_down)


def test_a_moment_before_a_move_shows_the_instance_on_its_old_node_and_after_on_its_new(client, history):
    old, new = history["kv"]["node"], history["target"]["name"]
    at_first = _moment(client, history["before_move"])
    assert at_first["placement_known"] and _placement(at_first)["kv"] == old
    assert _placement(_moment(client, history["after_move"]))["kv"] == new
    assert _placement(_moment(client, datetime.now(timezone.utc)))["kv"] == new  # and now
    cores = {n["name"]: n["used_cores"] for n in at_first["layout"]["nodes"]}
    later = {n["name"]: n["used_cores"] for n in _moment(client, history["after_move"])["layout"]["nodes"]}
    assert cores[old] > 0 and later[old] == 0 and later[new] == pytest.approx(cores[old])  # reservations moved
    (deployment,) = at_first["layout"]["deployments"]
    assert deployment["application"] == "replayed" and deployment["edges"] == [["gw", "kv"]]


def test_a_node_state_is_the_one_its_events_gave_at_the_moment(client, history):
    old = history["kv"]["node"]
    assert _state(_moment(client, history["after_move"]), old) == "up"  # it went down later: "previous" says so
    assert _state(_moment(client, history["after_down"]), old) == "down"


def test_a_deployment_deleted_since_is_still_replayed_and_gone_after(client, history):
    assert client.delete(f"/api/v1/deployments/{history['deployment']}").status_code == 204
    after_delete = _now()
    gone = _moment(client, after_delete)
    assert gone["placement_known"] and gone["layout"]["instances"]["id"] == [] and gone["applications"] == []
    then = _moment(client, history["after_move"])
    assert set(_placement(then)) == {"gw", "kv"} and then["applications"][0]["application"] == "replayed"


def test_before_the_first_recorded_change_the_placement_is_said_unknown(client, history):
    early = _moment(client, history["before"])
    assert not early["placement_known"] and early["layout"]["instances"]["id"] == []
    assert datetime.fromisoformat(early["placement_recorded_since"]) > history["before"]


def test_the_figures_are_those_of_the_seconds_before_the_moment(client, history):
    gw = history["gw"]
    time.sleep(1.1)  # a whole second, so the moment (on a second) is after the placement and the move
    at = datetime.now(timezone.utc).replace(microsecond=0)
    start_ns = int((at - timedelta(seconds=4)).timestamp() * 10**9)
    beats = []
    for i in range(8):  # 4 s of heartbeats, 0.5 s apart, 30 requests each: 240 requests in the 10 s window
        hb = agent_pb2.Heartbeat(node_id=gw["node_id"], timestamp_unix_ns=start_ns + 500_000_000 * i,
                                 queue_length=1, cpu_utilization=0.5, power_watts=90.0,
                                 power_source=agent_pb2.POWER_SOURCE_MODEL)
        hb.instances.add(instance_id=gw["id"], requests_completed=30, exec_time_us=10.0, exec_time_ema_us=10.0,
                         cpu_share=0.2, latency_count=30, latency_avg_us=500.0, latency_p99_us=900.0)
        beats.append(hb)
    store_heartbeats(beats)
    with session_scope() as session:
        cluster_id = session.get(ComputeNode, uuid.UUID(gw["node_id"])).cluster_id
    step = at.replace(second=at.second - at.second % 10) - timedelta(seconds=10)
    insert_rollups([dict(ts=step, cluster_id=cluster_id, node_id=uuid.UUID(gw["node_id"]), joules=600.0, requests=0,
                         source="model"),
                    dict(ts=step, cluster_id=cluster_id, node_id=uuid.UUID(gw["node_id"]),
                         instance_id=gw["id"], application="replayed", joules=240.0, requests=120,
                         counts_requests=True, source="model")])
    (app,) = _moment(client, at)["applications"]
    assert app["window_s"] == 10 and app["throughput_rps"] == pytest.approx(24.0)
    assert app["avg_latency_us"] == pytest.approx(500.0) and app["p99_latency_us"] == pytest.approx(900.0)
    assert app["joules_per_request"] == pytest.approx(2.0) and app["energy_source"] == "model"
    assert app["watts"] == pytest.approx(24.0)
    power = _moment(client, at)["power"]
    assert power["watts"] == pytest.approx(60.0) and power["energy_source"] == "model"


@pytest.mark.parametrize("at,why", [("2026-11-21T10:00:00", "time zone"), ("yesterday", "datetime"),
                                    ("2999-01-01T00:00:00Z", "future")])
def test_a_bad_moment_is_refused_naming_at(client, history, at, why):
    got = client.get("/api/v1/clusters/replayed/moment", params={"at": at})
    assert got.status_code == 422, got.text
    assert [e["field"] for e in got.json()["errors"]] == ["at"] and why in got.text


def test_an_unknown_cluster_is_404(client, history):
    got = client.get("/api/v1/clusters/nowhere/moment", params={"at": datetime.now(timezone.utc).isoformat()})
    assert got.status_code == 404


def _kept_rows(instance_id: str) -> list:
    from sqlalchemy import select

    from e3.models import instance_history

    with session_scope() as session:
        return session.execute(select(instance_history.c.node_id, instance_history.c.gone)
                               .where(instance_history.c.instance_id == uuid.UUID(instance_id))).all()


def test_retention_keeps_each_live_instance_latest_row_and_forgets_removed_ones(client, history):
    from e3.services.cluster_moments import drop_expired_history

    later = datetime.now(timezone.utc) + timedelta(days=31)  # all rows so far are past a 30-day retention
    with session_scope() as session:
        assert drop_expired_history(session, later, retention_days=30) >= 1  # kv: placed, then moved
    assert [(str(node), gone) for node, gone in _kept_rows(history["kv"]["id"])] == [(history["target"]["id"], False)]
    assert _placement(_moment(client, datetime.now(timezone.utc)))["kv"] == history["target"]["name"]
    assert client.delete(f"/api/v1/deployments/{history['deployment']}").status_code == 204
    with session_scope() as session:
        drop_expired_history(session, later + timedelta(days=1), retention_days=30)
    assert _kept_rows(history["kv"]["id"]) == []  # removed before the cutoff: nothing to keep
