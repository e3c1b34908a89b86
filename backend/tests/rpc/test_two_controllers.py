"""Two controllers against one Postgres and Redis (issue 22, item 3): each watches the nodes registered at it, the
leader also those no live controller holds; a controller started beside another does not take the other's live
nodes down, and a node whose agent moved to the other controller is let go, not failed over."""

import threading
import time
import uuid

import grpc
import pytest
import redis
from helpers import agent_auth as auth
from helpers import wait_until
from test_agent_service import batch, events, heartbeat, names, node_state, register

from e3.core.config import get_settings
from e3.rpc.pb import agent_pb2_grpc


class Heartbeats:
    """An agent's heartbeat stream to one controller, a batch every 50 ms, on a thread, until stop()."""

    def __init__(self, port: int, token: str, agent_id: str, node_id: str):
        self._stop = threading.Event()
        self.ended: list = []
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = agent_pb2_grpc.AgentServiceStub(self.channel)

        def batches():
            sequence = 0
            while not self._stop.wait(0.05):
                sequence += 1
                yield batch(agent_id, sequence, heartbeat(node_id))

        def run():
            try:
                self.ended.append(stub.StreamHeartbeats(batches(), metadata=auth(token)))
            except grpc.RpcError as exc:
                self.ended.append(exc)

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def stop(self):
        self._stop.set()
        self.thread.join(10)
        self.channel.close()


def _register_at(port, token, node_name, agent_id):
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        return register(agent_pb2_grpc.AgentServiceStub(channel), token, node_name, agent_id=agent_id).node_id


def test_a_second_controller_leaves_the_first_ones_live_nodes_alone(start_controller, lab, agent_token):
    first = start_controller()
    node = _register_at(first.port, agent_token, names(lab, "host")[0], "agent-at-first")
    beats = Heartbeats(first.port, agent_token, "agent-at-first", node)
    second = start_controller(resume_grace_ms=600)
    try:
        time.sleep(2.5)  # the resume grace and E3_DOWN_AFTER_MS (600 ms) several times over
        assert node_state(node) == "up"
        assert node not in {str(n) for n in second.call(_watched(second))}
        assert events("node.down") == [] and events("failover.started") == []
    finally:
        beats.stop()
        second.stop()
        first.stop()


def test_a_node_whose_agent_moved_to_the_other_controller_is_let_go_not_failed_over(start_controller, lab,
                                                                                     agent_token):
    first = start_controller()
    second = start_controller()
    host = names(lab, "host")[0]
    node = _register_at(first.port, agent_token, host, "moving-agent")
    at_first = Heartbeats(first.port, agent_token, "moving-agent", node)
    wait_until(lambda: node in {str(n) for n in first.call(_watched(first))}, what="the first controller watching")
    # the agent moves: it registers at the second controller, then its stream to the first ends
    assert _register_at(second.port, agent_token, host, "moving-agent") == node
    at_second = Heartbeats(second.port, agent_token, "moving-agent", node)
    at_first.stop()
    try:
        wait_until(lambda: node not in {str(n) for n in first.call(_watched(first))}, timeout=10,
                   what="the first controller letting the node go")
        time.sleep(1.5)
        assert node_state(node) == "up"
        assert events("node.down") == [] and events("failover.started") == []
    finally:
        at_second.stop()
        second.stop()
        first.stop()


def test_another_agent_is_refused_at_another_controller_while_the_first_still_runs_the_node(start_controller, lab,
                                                                                              agent_token):
    first, second = start_controller(), start_controller()
    host = names(lab, "host")[0]
    node = _register_at(first.port, agent_token, host, "running-agent")
    beats = Heartbeats(first.port, agent_token, "running-agent", node)
    try:
        wait_until(lambda: _latest(node), what="its heartbeats in Redis")
        with pytest.raises(grpc.RpcError) as refused:
            _register_at(second.port, agent_token, host, "usurper")
        assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
        assert "another live agent at another controller" in refused.value.details()
        assert "running-agent" not in refused.value.details()  # no id to impersonate it with
    finally:
        beats.stop()
    try:
        time.sleep(0.8)  # silent past E3_DOWN_AFTER_MS (600 ms): another agent may take it over
        assert _register_at(second.port, agent_token, host, "successor") == node
    finally:
        second.stop()
        first.stop()


def _latest(node_id: str) -> bool:
    from e3.core.db import session_scope
    from e3.live.channel import latest_key
    from e3.models import ComputeNode

    with session_scope() as session:
        cluster_id = session.get(ComputeNode, uuid.UUID(node_id)).cluster_id
    return bool(redis.Redis.from_url(get_settings().redis_url).hexists(latest_key(cluster_id), node_id))


def test_the_leader_takes_down_a_node_no_controller_holds_once_the_grace_is_over(start_controller, lab,
                                                                                 agent_token):
    first = start_controller()
    node = _register_at(first.port, agent_token, names(lab, "host")[0], "orphaned-agent")
    first.stop()  # an orderly stop: its row goes, so the node's lease names no controller
    second = start_controller(resume_grace_ms=1500)
    try:
        started = time.monotonic()
        wait_until(lambda: node_state(node) == "down", timeout=15, what="the orphaned node going down")
        assert time.monotonic() - started >= 1.5 - 0.1  # not before its agent had the grace to come back
    finally:
        second.stop()


def _watched(running):
    async def nodes():
        return list(running.controller.hub.nodes)
    return nodes()


def test_the_api_asks_a_nodes_raw_tail_of_the_controller_holding_it(start_controller, lab, agent_token, client):
    first, second = start_controller(), start_controller()
    node = _register_at(second.port, agent_token, names(lab, "host")[0], "agent-at-second")
    beats = Heartbeats(second.port, agent_token, "agent-at-second", node)
    try:
        def tail():
            answer = client.get(f"/api/v1/nodes/{node}/telemetry").json()
            return answer if answer["tail_status"] == "ok" and answer["tail"] else None

        answer = wait_until(tail, timeout=10, what="the raw tail from the second controller")
        assert answer["tail_error"] is None
    finally:
        beats.stop()
        second.stop()
        first.stop()
