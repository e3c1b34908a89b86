"""Issue 19, item 3: a controller that starts after an orderly stop (E3_RESUME_GRACE_MS) keeps the nodes that were
up for their agents to come back, lets a new agent process take them, and takes down only those not back in time."""

import time

import grpc
from helpers import agent_auth as auth
from helpers import wait_until
from test_agent_service import batch, heartbeat, names, node_state, register

from e3.rpc.pb import agent_pb2_grpc

GRACE_MS = 3000


def _controller_with_grace():
    from conftest import RunningController, _test_settings

    return RunningController(_test_settings().model_copy(update=dict(resume_grace_ms=GRACE_MS)))


def test_issue19_item3_a_node_is_kept_through_the_resume_grace_and_a_new_agent_may_take_it(
        start_controller, lab, agent_token):
    first = start_controller()
    hosts = names(lab, "host")
    with grpc.insecure_channel(f"127.0.0.1:{first.port}") as channel:
        stub = agent_pb2_grpc.AgentServiceStub(channel)
        back = register(stub, agent_token, hosts[0], agent_id="before-stop-1").node_id
        gone = register(stub, agent_token, hosts[1], agent_id="before-stop-2").node_id
        for agent, node in (("before-stop-1", back), ("before-stop-2", gone)):
            stub.StreamHeartbeats(iter([batch(agent, 1, heartbeat(node))]), metadata=auth(agent_token), timeout=10)
    first.stop()  # the controller is stopped first (e3 up's order), then its agents
    second = _controller_with_grace()
    try:
        started = time.monotonic()
        time.sleep(1.5)  # longer than E3_DOWN_AFTER_MS (600 ms here): without the grace both would be down
        # neither is down (suspect at most: the first controller may have noticed their streams end)
        assert {node_state(back), node_state(gone)} <= {"up", "suspect"}
        with grpc.insecure_channel(f"127.0.0.1:{second.port}") as channel:
            stub = agent_pb2_grpc.AgentServiceStub(channel)
            # a new agent process (a new id) takes the node at once: the old one is not "another live agent"
            assert register(stub, agent_token, hosts[0], agent_id="after-start-1").node_id == back
            beats = stub.StreamHeartbeats(iter([batch("after-start-1", 1, heartbeat(back))]),
                                          metadata=auth(agent_token), timeout=10)
            assert beats.accepted == 1
            wait_until(lambda: node_state(gone) == "down", timeout=10, what="the node whose agent never came back down")
            assert time.monotonic() - started >= GRACE_MS / 1000 - 0.1
    finally:
        second.stop()
