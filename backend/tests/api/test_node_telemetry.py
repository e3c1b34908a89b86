"""Node telemetry from stored heartbeats: a node's series with power sources, paging, and the recent
summary in node listings; bad queries named."""

import uuid
from datetime import datetime, timedelta, timezone

from helpers import store_heartbeats
from sqlalchemy import update

from e3.core.db import session_scope
from e3.models import ComputeNode
from e3.rpc.pb import agent_pb2

_SOURCES = {"model": agent_pb2.POWER_SOURCE_MODEL, "rapl": agent_pb2.POWER_SOURCE_RAPL}


def _store(node_id, count, start, source="model", requests=5):
    """`count` heartbeats of the node, 50 ms apart from `start`, stored as the controller stores them."""
    beats, start_ns = [], int(start.timestamp() * 10**9)
    for i in range(count):
        hb = agent_pb2.Heartbeat(node_id=node_id, timestamp_unix_ns=start_ns + 50_000_000 * i, queue_length=i,
                                 rx_bytes=10 * i, tx_bytes=9 * i, rx_packets=i, tx_packets=i, cpu_utilization=0.25,
                                 power_watts=90.0 + i, power_source=_SOURCES[source])
        hb.instances.add(instance_id="inst-a", requests_completed=requests, exec_time_us=12.0, exec_time_ema_us=11.0,
                         cpu_share=0.1)
        beats.append(hb)
    store_heartbeats(beats)


def _node(client):
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 1, "server_type": "beefy",
                                              "name": "tele"})
    assert r.status_code == 201
    return client.get("/api/v1/clusters/tele/nodes").json()["items"][0]


def test_telemetry_pages_through_a_nodes_heartbeats_with_power_and_its_source(client):
    node = _node(client)
    start = datetime.now(timezone.utc) - timedelta(seconds=10)
    _store(node["id"], 7, start)
    since = (start - timedelta(seconds=1)).isoformat()
    first = client.get(f"/api/v1/nodes/{node['id']}/telemetry", params={"since": since, "limit": 4}).json()
    assert [p["queue_len"] for p in first["items"]] == [0, 1, 2, 3]
    assert first["items"][1]["power"] == {"watts": 91.0, "source": "model"}
    assert first["items"][1]["requests"] == 5 and first["items"][1]["instances"][0]["instance_id"] == "inst-a"
    rest = client.get(f"/api/v1/nodes/{node['id']}/telemetry",
                      params={"since": first["next_since"], "limit": 4}).json()
    assert [p["queue_len"] for p in rest["items"]] == [4, 5, 6] and rest["next_since"] is None


def test_node_listing_summarises_the_last_minute_for_agent_run_nodes(client):
    node = _node(client)
    with session_scope() as session:
        session.execute(update(ComputeNode).where(ComputeNode.id == uuid.UUID(node["id"]))
                        .values(agent_id="agent-1", address="127.0.0.1"))
    _store(node["id"], 3, datetime.now(timezone.utc) - timedelta(seconds=2), source="rapl", requests=4)
    _store(node["id"], 2, datetime.now(timezone.utc) - timedelta(minutes=5), requests=1000)  # outside the window
    listed = client.get("/api/v1/clusters/tele/nodes").json()["items"][0]
    assert listed["agent_id"] == "agent-1" and listed["address"] == "127.0.0.1"
    assert listed["telemetry"]["requests"] == 12
    assert listed["telemetry"]["power"] == {"watts": 92.0, "source": "rapl"}


def test_nodes_without_heartbeats_have_no_telemetry_and_unknown_nodes_are_404(client):
    node = _node(client)
    assert client.get("/api/v1/clusters/tele/nodes").json()["items"][0]["telemetry"] is None
    r = client.get(f"/api/v1/nodes/{uuid.uuid4()}/telemetry")
    assert r.status_code == 404 and "not found" in r.json()["message"]
    assert client.get(f"/api/v1/nodes/{node['id']}/telemetry").json()["items"] == []


def test_bad_telemetry_queries_name_the_parameter(client):
    node = _node(client)
    r = client.get(f"/api/v1/nodes/{node['id']}/telemetry", params={"since": "yesterday"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "since"
    r = client.get(f"/api/v1/nodes/{node['id']}/telemetry", params={"since": "2026-11-21T10:00:00"})
    assert r.status_code == 422 and "time zone" in r.json()["errors"][0]["message"]
    r = client.get(f"/api/v1/nodes/{node['id']}/telemetry", params={"limit": 0})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "limit"
