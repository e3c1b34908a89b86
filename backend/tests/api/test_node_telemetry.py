"""Node telemetry from stored rollups: a node's 1 s steps with power sources and energy, paging, the recent
summary in node listings, the raw tail said unavailable when no controller answers; bad queries named."""

import uuid
from datetime import datetime, timedelta, timezone

from helpers import store_heartbeats
from sqlalchemy import update

from e3.core.db import session_scope
from e3.models import ComputeNode
from e3.rpc.pb import agent_pb2

_SOURCES = {"model": agent_pb2.POWER_SOURCE_MODEL, "rapl": agent_pb2.POWER_SOURCE_RAPL}


def _store(node_id, count, start, source="model", requests=5, every_s=0.05):
    """`count` heartbeats of the node, `every_s` apart from `start`, stored as the controller stores them."""
    beats, start_ns = [], int(start.timestamp() * 10**9)
    for i in range(count):
        hb = agent_pb2.Heartbeat(node_id=node_id, timestamp_unix_ns=start_ns + int(every_s * 1e9) * i, queue_length=i,
                                 rx_bytes=10 * i, tx_bytes=9 * i, rx_packets=i, tx_packets=i, cpu_utilization=0.25,
                                 power_watts=90.0 + i, power_source=_SOURCES[source])
        hb.instances.add(instance_id="inst-a", requests_completed=requests, exec_time_us=12.0, exec_time_ema_us=11.0,
                         cpu_share=0.1)
        beats.append(hb)
    store_heartbeats(beats)


def _second_ago(seconds: int) -> datetime:
    """A whole second `seconds` ago, plus 0.1 s: heartbeats from there fall in steps a test can count."""
    now = datetime.now(timezone.utc).replace(microsecond=0)
    return now - timedelta(seconds=seconds) + timedelta(milliseconds=100)


def _node(client):
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 1, "server_type": "beefy",
                                              "name": "tele"})
    assert r.status_code == 201
    return client.get("/api/v1/clusters/tele/nodes").json()["items"][0]


def test_telemetry_pages_through_a_nodes_steps_with_power_its_source_and_energy(client):
    node = _node(client)
    start = _second_ago(10)
    _store(node["id"], 7, start, every_s=0.5)  # two heartbeats a step: 4 steps, the last with one
    since = (start - timedelta(seconds=1)).isoformat()
    first = client.get(f"/api/v1/nodes/{node['id']}/telemetry", params={"since": since, "limit": 3}).json()
    steps = first["items"]
    assert [(p["resolution"], p["heartbeats"]) for p in steps] == [("1s", 2)] * 3
    assert [p["queue_len"] for p in steps] == [0.5, 2.5, 4.5] and [p["queue_len_max"] for p in steps] == [1, 3, 5]
    assert steps[1]["power"] == {"watts": 92.5, "source": "model"} and steps[1]["watts_max"] == 93.0
    assert steps[1]["joules"] == 92.0 * 0.5 + 93.0 * 0.5  # each heartbeat's watts over its 0.5 s interval
    assert steps[0]["joules"] == 91.0 * 0.5  # the node's first heartbeat has no interval
    assert [p["rx_bytes"] for p in steps] == [10, 20, 20]  # the counters' growth; none before the first
    assert steps[1]["requests"] == 10 and steps[1]["instances"][0]["instance_id"] == "inst-a"
    assert steps[1]["instances"][0]["exec_time_us"] == 12.0 and steps[1]["instances"][0]["requests"] == 10
    assert first["tail_status"] == "not_requested" and first["tail"] == []
    rest = client.get(f"/api/v1/nodes/{node['id']}/telemetry",
                      params={"since": first["next_since"], "limit": 3}).json()
    assert [p["heartbeats"] for p in rest["items"]] == [1] and rest["next_since"] is None
    # the last page asks the node's controller for its raw tail: there is none here, and the answer says so
    assert rest["tail_status"] == "unavailable" and rest["tail"] == []
    assert "did not answer" in rest["tail_error"]


def test_node_listing_summarises_the_last_minute_for_agent_run_nodes(client):
    node = _node(client)
    with session_scope() as session:
        session.execute(update(ComputeNode).where(ComputeNode.id == uuid.UUID(node["id"]))
                        .values(agent_id="agent-1", address="127.0.0.1"))
    _store(node["id"], 3, _second_ago(2), source="rapl", requests=4)  # one step
    _store(node["id"], 2, datetime.now(timezone.utc) - timedelta(minutes=5), requests=1000)  # outside the window
    listed = client.get("/api/v1/clusters/tele/nodes").json()["items"][0]
    assert listed["agent_id"] == "agent-1" and listed["address"] == "127.0.0.1"
    assert listed["telemetry"]["requests"] == 12
    assert listed["telemetry"]["power"] == {"watts": 91.0, "source": "rapl"}  # the step's mean


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


def test_a_controller_that_refuses_the_tail_is_said_to_refuse_it_not_to_be_silent():
    import grpc

    from e3.api.controller_tail import _why_unavailable

    class Answered(grpc.RpcError):
        def __init__(self, code, details):
            self._code, self._details = code, details

        def code(self):
            return self._code

        def details(self):
            return self._details

    refused = _why_unavailable(Answered(grpc.StatusCode.PERMISSION_DENIED, "the token lacks scope read"), "c:1")
    assert refused == "the controller at c:1 refused the call: PERMISSION_DENIED: the token lacks scope read"
    silent = _why_unavailable(Answered(grpc.StatusCode.UNAVAILABLE, "connection refused"), "c:1")
    assert "did not answer: UNAVAILABLE" in silent
