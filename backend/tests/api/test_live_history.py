"""The last minutes of a cluster's live figures from the stored rollups (GET /clusters/{name}/history): per node,
its steps' queue, CPU and watts with their source; per application, the requests/s and latency of its entry
primaries only; the cluster's totals; the window and the refusals. A real worker places the deployment; the
heartbeats go through the controller's intake into the rollups (helpers.store_heartbeats). Over hours, rollup rows
written as given are merged into coarser steps: means weighted by heartbeats, rates over the step's length, mixed
sources."""

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
from helpers import deploy_on_new_cluster, store_heartbeats

from e3.core.db import session_scope
from e3.live.recent_history import STEPS_S, step_for
from e3.rollup.steps import InstanceRollup, NodeRollup
from e3.rpc.pb import agent_pb2
from e3.services import telemetry_rollups

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
def placed(client, worker):
    """The application deployed on cluster "hist": its deployment id, and its gw and kv instances (placement
    items)."""
    deployment = deploy_on_new_cluster(client, "hist", APP)
    items = {i["dag_node"]: i for i in client.get(f"/api/v1/deployments/{deployment}/placement").json()["items"]}
    return dict(deployment=deployment, gw=items["gw"], kv=items["kv"])


@pytest.fixture
def stored(placed):
    deployment, gw, kv = placed["deployment"], placed["gw"], placed["kv"]
    start = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=10) + timedelta(milliseconds=100)
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


@pytest.mark.parametrize("query", ["minutes=0", "minutes=10081", "minutes=x"])
def test_a_bad_window_is_refused_naming_it(client, query):
    got = client.get(f"/api/v1/clusters/any/history?{query}")
    assert got.status_code == 422, got.text
    assert [e["field"] for e in got.json()["errors"]] == ["minutes"]


def test_an_unknown_cluster_is_404(client):
    got = client.get("/api/v1/clusters/nowhere/history")
    assert got.status_code == 404 and "nowhere" in got.json()["message"]


@pytest.mark.parametrize(("minutes", "step_s"), [(5, 1), (10, 1), (12, 1), (13, 2), (15, 2), (60, 5), (240, 30),
                                                 (360, 30), (1440, 120), (10080, 900)])
def test_the_step_is_the_finest_giving_at_most_720_points(minutes, step_s):
    assert step_for(minutes) == step_s and minutes * 60 / step_s <= 720
    assert step_s == STEPS_S[0] or minutes * 60 / STEPS_S[STEPS_S.index(step_s) - 1] > 720


def _node_row(node, start, heartbeats, queue_len_sum, cpu_util_sum, watts_sum, source):
    """A 1 s node rollup row as the controller writes it (only the figures the history reads vary)."""
    return NodeRollup(node["node_id"], node["cluster_id"], start, 1, heartbeats, 1.0, watts_sum / heartbeats, source,
                      watts_sum, watts_sum, queue_len_sum, queue_len_sum, cpu_util_sum, 1.0, 0, 0, 0, 0, 0,
                      start + 0.9)


def _instance_row(inst, start, requests, latency_count, latency_us_sum, p99):
    """A 1 s instance rollup row (only the figures the history reads vary)."""
    return InstanceRollup(inst["id"], inst["node_id"], inst["cluster_id"], start, 1, 2, requests, 0.0, 0.0,
                          latency_count, latency_us_sum, p99, p99 * latency_count)


def _store_rows(nodes, instances):
    with session_scope() as session:
        telemetry_rollups.add_rollups(session, nodes, instances, telemetry_rollups.days_of(nodes))


@pytest.fixture
def hours_back(client, placed):
    """Rows of one 30 s step 3 hours back, of the current second, and of 5 hours back (outside 4 hours). In the
    old step: gw's node has 2 then 4 heartbeats (queue 1 and 5, CPU 0.5 and 0.8, 100 W and 120 W, model); kv's node
    is rapl then ipmi; gw (the entry) answers 300 then 600 requests (latencies 400 µs x 300 and 1000 µs x 100; p99
    1000 and 2000 µs), then 0 requests with a p99 of 9999 µs that measured no latency; kv answers 5000."""
    cluster_id = client.get("/api/v1/clusters/hist").json()["id"]
    gw, kv = (dict(placed[k], cluster_id=cluster_id) for k in ("gw", "kv"))
    now = int(datetime.now(timezone.utc).timestamp())
    old = (now - 3 * 3600) // 30 * 30
    rows = [_node_row(gw, old, 2, 2, 1.0, 200.0, "model"), _node_row(gw, old + 1, 4, 20, 3.2, 480.0, "model"),
            _node_row(kv, old, 2, 0, 0.2, 100.0, "rapl"), _node_row(kv, old + 2, 2, 0, 0.2, 60.0, "ipmi")]
    instances = [_instance_row(gw, old, 300, 300, 300 * 400.0, 1000.0),
                 _instance_row(gw, old + 1, 600, 100, 100 * 1000.0, 2000.0),
                 _instance_row(gw, old + 2, 0, 0, 0.0, 9999.0), _instance_row(kv, old + 1, 5000, 5000, 1e6, 300.0)]
    for start in (now, now - 5 * 3600):
        rows += [replace(r, start=start, last_ts=start + 0.9) for r in rows[:1]]
        instances += [replace(r, start=start) for r in instances[:1]]
    _store_rows(rows, instances)
    return dict(old=old, now=now, gw=gw, kv=kv)


def test_hours_are_read_in_merged_steps(client, placed, hours_back):
    history = client.get("/api/v1/clusters/hist/history", params={"minutes": 240}).json()
    assert history["minutes"] == 240 and history["step_s"] == 30
    old_end, now_end = (hours_back["old"] + 30) * 1000, (hours_back["now"] // 30 * 30 + 30) * 1000
    by_node = {n["node_id"]: n["points"] for n in history["nodes"]}
    gw, kv = by_node[hours_back["gw"]["node_id"]], by_node[hours_back["kv"]["node_id"]]
    assert [p[0] for p in gw] == [old_end, now_end]  # 5 hours back is outside; each step's end, aligned
    # weighted by heartbeats: queue (2 + 20) / 6, CPU (1.0 + 3.2) / 6, watts (200 + 480) / 6; not the means' mean
    assert gw[0][1:] == [pytest.approx(22 / 6), pytest.approx(0.7), pytest.approx(680 / 6), "model"]
    assert kv[0][1:] == [0.0, pytest.approx(0.1), pytest.approx(40.0), "mixed"]  # rapl and ipmi in one step
    (app,) = history["applications"]
    assert app["deployment_id"] == placed["deployment"]
    # gw's 900 requests over the 30 s step; latency (120000 + 100000) µs / 400; p99 of the rows that measured one
    assert app["points"][0] == [old_end, pytest.approx(30.0), pytest.approx(550.0), 2000.0]
    assert app["points"][1][0] == now_end and app["points"][1][1] == pytest.approx(10.0)  # 300 in a step so far
    total = history["totals"][0]
    assert total[0] == old_end and total[1] == pytest.approx(680 / 6 + 40) and total[2] == pytest.approx(30.0)
    assert total[3] == pytest.approx(30.0 / (680 / 6 + 40))  # requests per joule


def test_a_week_is_read_in_15_minute_steps(client, hours_back):
    history = client.get("/api/v1/clusters/hist/history", params={"minutes": 10080}).json()
    assert history["step_s"] == 900
    starts = sorted({hours_back["old"] // 900, hours_back["now"] // 900, (hours_back["now"] - 5 * 3600) // 900})
    assert [t[0] for t in history["totals"]] == [(s + 1) * 900 * 1000 for s in starts]


def test_minutes_keep_their_1_s_steps(client, hours_back):
    history = client.get("/api/v1/clusters/hist/history", params={"minutes": 5}).json()
    assert history["step_s"] == 1
    assert [t[0] for t in history["totals"]] == [(hours_back["now"] + 1) * 1000]
    assert history["applications"][0]["points"] == [[(hours_back["now"] + 1) * 1000, 300.0, 400.0, 1000.0]]


def test_a_window_too_long_to_read_in_time_says_so_and_names_minutes(client, monkeypatch):
    """Past the statement timeout (a week over a large cluster), the answer says which window was too long and
    that a shorter one is the cure, not only that the database was slow."""
    from sqlalchemy import text

    from e3.live import recent_history

    def slow(session, cluster, minutes):
        session.execute(text("SET LOCAL statement_timeout = '20ms'"))
        session.execute(text("SELECT pg_sleep(1)"))  # PostgreSQL cancels it: query_canceled

    monkeypatch.setattr(recent_history, "recent", slow)
    r = client.get("/api/v1/clusters/any/history", params={"minutes": 10080})
    assert r.status_code == 503
    assert r.json()["code"] == "history_too_slow" and "10080 minutes" in r.json()["message"]
    assert "fewer minutes" in r.json()["message"]
