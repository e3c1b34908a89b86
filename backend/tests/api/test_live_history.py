"""The last minutes of a cluster's live figures from the stored rollups (GET /clusters/{name}/history): per node,
its steps' queue, CPU and watts with their source; per application, the requests/s and latency of its entry
primaries only; the cluster's totals; the window and the refusals. A real worker places the deployment; the
heartbeats go through the controller's intake into the rollups (helpers.store_heartbeats)."""

from datetime import datetime, timedelta, timezone

import pytest
from helpers import deploy_on_new_cluster, store_heartbeats

from e3.rpc.pb import agent_pb2

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "hist"},
       "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0, "constraints": {"platform": "host"}},
                          {"id": "kv", "service": "kvs", "replicas": 0}],
                "edges": [{"from": "gw", "to": "kv"}]}}


def _beats(node_id, instance_id, start, count, watts, requests, latency_us):
    """`count` heartbeats 0.5 s apart from `start` (two a 1 s step), the instance answering `requests` each."""
    out, start_ns = [], int(start.timestamp() * 10**9)
    for i in range(count):
        hb = agent_pb2.Heartbeat(node_id=node_id, timestamp_unix_ns=start_ns + 500_000_000 * i, queue_length=2 * i,
                                 cpu_utilization=0.5, power_watts=watts, power_source=agent_pb2.POWER_SOURCE_MODEL)
        hb.instances.add(instance_id=instance_id, requests_completed=requests, exec_time_us=10.0, exec_time_ema_us=10.0,
                         cpu_share=0.2, latency_count=requests, latency_avg_us=latency_us,
                         latency_p99_us=3 * latency_us)
        out.append(hb)
    return out


@pytest.fixture
def stored(client, worker):
    deployment = deploy_on_new_cluster(client, "hist", APP)
    placed = {i["dag_node"]: i for i in client.get(f"/api/v1/deployments/{deployment}/placement").json()["items"]}
    start = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=10) + timedelta(milliseconds=100)
    gw, kv = placed["gw"], placed["kv"]
    store_heartbeats(_beats(gw["node_id"], gw["id"], start, 8, 100.0, 50, 400.0)  # 4 steps, 100 requests each
                     + _beats(kv["node_id"], kv["id"], start, 8, 40.0, 70, 90.0))
    old = start - timedelta(minutes=10)  # outside a 5-minute window
    store_heartbeats(_beats(gw["node_id"], gw["id"], old, 2, 100.0, 50, 400.0))
    return dict(deployment=deployment, gw=gw, kv=kv, start=start)


def test_the_last_minutes_per_node_per_application_and_for_the_cluster(client, stored):
    got = client.get("/api/v1/clusters/hist/history", params={"minutes": 5})
    assert got.status_code == 200, got.text
    history = got.json()
    assert history["cluster"] == "hist" and history["minutes"] == 5 and history["step_s"] == 1
    by_node = {n["node_id"]: n["points"] for n in history["nodes"]}
    gw_points = by_node[stored["gw"]["node_id"]]
    assert len(gw_points) == 4  # the steps of the last minutes only, not the one 10 minutes ago
    first_end = int(stored["start"].replace(microsecond=0).timestamp() * 1000) + 1000
    assert [p[0] for p in gw_points] == [first_end + 1000 * k for k in range(4)]  # each step's end, in ms
    assert gw_points[1][1:] == [5.0, 0.5, 100.0, "model"]  # queue 4 and 6: mean 5; CPU; watts; source
    (app,) = history["applications"]
    assert app["deployment_id"] == stored["deployment"] and app["application"] == "hist"
    # its entry (gw) only: 2 heartbeats x 50 requests a step; the kvs's 140 a step are not the application's
    assert [p[1] for p in app["points"][1:]] == [100.0, 100.0, 100.0]
    assert app["points"][1][2] == 400.0 and app["points"][1][3] == 1200.0  # mean latency; the highest p99
    total = {p[0]: p for p in history["totals"]}[gw_points[1][0]]
    assert total[1] == pytest.approx(140.0) and total[2] == 100.0  # both nodes' watts; the application's rps
    assert total[3] == pytest.approx(100.0 / 140.0)  # requests per joule


@pytest.mark.parametrize("query", ["minutes=0", "minutes=61", "minutes=x"])
def test_a_bad_window_is_refused_naming_it(client, query):
    got = client.get(f"/api/v1/clusters/any/history?{query}")
    assert got.status_code == 422, got.text
    assert [e["field"] for e in got.json()["errors"]] == ["minutes"]


def test_an_unknown_cluster_is_404(client):
    got = client.get("/api/v1/clusters/nowhere/history")
    assert got.status_code == 404 and "nowhere" in got.json()["message"]
