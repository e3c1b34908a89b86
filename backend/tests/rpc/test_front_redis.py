"""Behind its compiled ingest front (E3_INGEST_FRONT, agents/e3-ingest), the front writes the live state to Redis
itself (agents/e3-ingest/src/redis_link.h: E3_FRONT_REDIS_* from the controller's REDIS_URL), so that it does not
wait for the controller's loop: the latest state is in `e3:latest:<cluster>` while the controller's own live
publisher wrote nothing. A front that cannot reach Redis still takes the heartbeats (they reach Postgres, the
summary comes: no hang) and says so in the log. TLS (rediss://) it cannot speak: the controller writes then."""

import grpc
import pytest
import redis
from helpers import agent_auth as auth
from helpers import latest_state, wait_until
from test_agent_service import batch, heartbeat, names, register, stored_rows
from test_front_parity import INGEST

from e3.core.embedded import free_tcp_port
from e3.rpc import server as server_module
from e3.rpc.ingest_front import IngestFront, front_redis_env
from e3.rpc.pb import agent_pb2_grpc


@pytest.fixture
def front(start_controller, monkeypatch):
    """Start a controller behind its front (keyword arguments: its settings) and stop it yourself."""
    if not INGEST.is_file():
        pytest.fail(f"{INGEST} is missing: `make test` builds it (make agents)")
    monkeypatch.setenv("E3_INGEST_BIN", str(INGEST))
    return lambda: start_controller(ingest_front=True)


def test_the_front_is_told_the_controllers_redis_in_its_environment():
    assert front_redis_env(None) == {} and front_redis_env("") == {}
    assert front_redis_env("redis://:secret@127.0.0.1:6390/2") == {
        "E3_FRONT_REDIS_HOST": "127.0.0.1", "E3_FRONT_REDIS_PORT": "6390", "E3_FRONT_REDIS_PASSWORD": "secret",
        "E3_FRONT_REDIS_DB": "2"}
    assert front_redis_env("redis://alice:pw@redis.example") == {
        "E3_FRONT_REDIS_HOST": "redis.example", "E3_FRONT_REDIS_PORT": "6379", "E3_FRONT_REDIS_USERNAME": "alice",
        "E3_FRONT_REDIS_PASSWORD": "pw"}
    assert front_redis_env("unix:///run/redis.sock?db=3") == {"E3_FRONT_REDIS_PATH": "/run/redis.sock",
                                                              "E3_FRONT_REDIS_DB": "3"}
    assert front_redis_env("rediss://:pw@redis.example:6380/0") == {}  # TLS: the controller writes
    front = IngestFront(INGEST, ["127.0.0.1"], 0, INGEST.parent / "x.sock", redis_url="redis://:pw@h:1/0")
    assert front.writes_redis and front.env["E3_FRONT_REDIS_PASSWORD"] == "pw"
    assert not any("pw" in arg for arg in front.args)  # never on the command line (`ps`)


def test_behind_its_front_the_front_writes_the_latest_state_to_redis_not_the_controller(
        front, lab, agent_token, backing_services):
    running = front()
    try:
        assert running.controller.front.writes_redis
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = agent_pb2_grpc.AgentServiceStub(channel)
            agent = "agent-front-redis"
            ids = [register(stub, agent_token, name, agent_id=agent).node_id for name in names(lab, "smartnic")[:2]]
            summary = stub.StreamHeartbeats(iter([batch(agent, seq, *(heartbeat(i, queue_length=4 + seq) for i in ids))
                                                  for seq in (1, 2)]), metadata=auth(agent_token), timeout=10)
        assert (summary.accepted, summary.rejected) == (4, 0)
        r = redis.Redis.from_url(backing_services["redis_url"])
        wait_until(lambda: all((latest_state(r, i) or {}).get("queue_len") == 6 for i in ids),
                   what="each node's latest heartbeat in Redis")
        live = running.controller.hub.live  # the controller's own publisher: nothing went through it
        assert (live.sent, live.pending, live.dropped) == (0, 0, 0)
    finally:
        running.stop()


def test_a_front_that_cannot_reach_redis_still_takes_heartbeats_and_says_so(
        front, monkeypatch, capfd, lab, agent_token, backing_services):
    port = free_tcp_port()  # nothing listens there

    class FrontWithoutRedis(IngestFront):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "redis_url": f"redis://:pw@127.0.0.1:{port}/0"})

    monkeypatch.setattr(server_module, "IngestFront", FrontWithoutRedis)
    running = front()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = agent_pb2_grpc.AgentServiceStub(channel)
            agent = "agent-no-redis"
            node = register(stub, agent_token, names(lab, "smartnic")[0], agent_id=agent).node_id
            summary = stub.StreamHeartbeats(iter([batch(agent, seq, heartbeat(node)) for seq in (1, 2, 3)]),
                                            metadata=auth(agent_token), timeout=10)
        assert (summary.accepted, summary.rejected) == (3, 0)
        assert stored_rows(node) == 3
        r = redis.Redis.from_url(backing_services["redis_url"])
        assert latest_state(r, node) is None  # the front dropped it; the controller did not write it either
    finally:
        running.stop()
    err = capfd.readouterr().err
    assert f"e3-ingest: cannot reach Redis at 127.0.0.1:{port} for the live state" in err, err
    assert "pw" not in err
