"""The raw tail: the controller keeps each node's last heartbeats and hands them, to a `read` token only, over
e3.internal.v1.TelemetryTail; `GET /nodes/{id}/telemetry` shows them beside the stored 1 s steps."""

import time

import grpc
import pytest
from test_agent_service import auth, batch, heartbeat, names, register

from e3.api import controller_tail
from e3.rpc.pb import telemetry_pb2, telemetry_pb2_grpc


def _stream(stub, token, node_id, count, agent="agent-tail"):
    start = time.time_ns()
    beats = [heartbeat(node_id, queue_length=i, ts_ns=start + i * 50_000_000) for i in range(count)]
    summary = stub.StreamHeartbeats(iter([batch(agent, 1, *beats)]), metadata=auth(token), timeout=10)
    assert summary.accepted == count
    return start


def test_the_controller_hands_its_raw_tail_to_read_tokens_only(stub, channel, lab, agent_token, make_token):
    node_id = register(stub, agent_token, names(lab, "smartnic")[0], agent_id="agent-tail").node_id
    start = _stream(stub, agent_token, node_id, 5)
    tail = telemetry_pb2_grpc.TelemetryTailStub(channel)
    reader = auth(make_token("read", name="reader"))
    answer = tail.Tail(telemetry_pb2.TailRequest(node_id=node_id), metadata=reader, timeout=5)
    points = [controller_tail.point(h) for h in answer.heartbeats_json]
    assert [p["queue_len"] for p in points] == [0, 1, 2, 3, 4] and points[0]["resolution"] == "raw"
    assert answer.holds_since_unix_ns == start and answer.window_s == 10
    newest = tail.Tail(telemetry_pb2.TailRequest(node_id=node_id, since_unix_ns=start, limit=2), metadata=reader,
                       timeout=5)
    assert [controller_tail.point(h)["queue_len"] for h in newest.heartbeats_json] == [3, 4]
    with pytest.raises(grpc.RpcError) as refused:  # an agent's credential reads no telemetry
        tail.Tail(telemetry_pb2.TailRequest(node_id=node_id), metadata=auth(agent_token), timeout=5)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED and "read" in refused.value.details()
    with pytest.raises(grpc.RpcError) as unknown:
        tail.Tail(telemetry_pb2.TailRequest(node_id="no-such-node"), metadata=reader, timeout=5)
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND


def test_the_api_shows_the_controllers_tail_beside_the_stored_steps(stub, controller, lab, agent_token, client,
                                                                    monkeypatch):
    monkeypatch.setattr(controller_tail, "controller_target", lambda: f"127.0.0.1:{controller.port}")
    node_id = register(stub, agent_token, names(lab, "smartnic")[0], agent_id="agent-tail").node_id
    _stream(stub, agent_token, node_id, 4)
    page = client.get(f"/api/v1/nodes/{node_id}/telemetry").json()
    assert page["tail_status"] == "ok" and [p["queue_len"] for p in page["tail"]] == [0, 1, 2, 3], page["tail_error"]
    assert sum(s["heartbeats"] for s in page["items"]) == 4  # the summary came once the rollups were written
    other = register(stub, agent_token, names(lab, "smartnic")[1], agent_id="agent-quiet").node_id
    quiet = client.get(f"/api/v1/nodes/{other}/telemetry").json()
    assert (quiet["tail_status"], quiet["tail"], quiet["items"]) == ("none", [], [])
