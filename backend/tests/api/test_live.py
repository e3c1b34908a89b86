"""The live channel against a real `e3 api` process, Redis and Postgres: heartbeats go out the controller's way
(HeartbeatIntake encodes them, LivePublisher writes the hashes and publishes on `e3:live`), and arrive on the
WebSocket and the SSE fallback, coalesced; refusals come with a code a browser can read."""

import asyncio
import json
import time
import uuid

import httpx
import pytest
import redis.asyncio as aioredis
from helpers import deploy_on_new_cluster
from sqlalchemy import select
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from e3.core.db import session_scope
from e3.models import Cluster, ComputeNode, Instance
from e3.rpc.pb import agent_pb2
from e3.controller import live_publisher
from e3.controller.agent_hub import TrackedNode
from e3.controller.heartbeat_intake import HeartbeatIntake

AGENT = "agent-live"


def _ws_url(api_server: str, cluster: str) -> str:
    return api_server.replace("http://", "ws://") + f"/api/v1/clusters/{cluster}/live"


def _protocols(token: str) -> list[str]:
    return ["e3.live.v1", f"e3.bearer.{token}"]


def _cluster(client, name: str, servers: int = 1) -> tuple[uuid.UUID, list[uuid.UUID]]:
    assert client.post("/api/v1/clusters", json={"generator": "fattree", "servers": servers,
                                                 "server_type": "type1-smartnic", "name": name}).status_code == 201
    with session_scope() as session:
        cluster_id = session.scalar(select(Cluster.id).where(Cluster.name == name))
        nodes = list(session.scalars(select(ComputeNode.id).where(ComputeNode.cluster_id == cluster_id)
                                     .order_by(ComputeNode.name)))
    return cluster_id, nodes


class Controller:
    """Publishes heartbeats and node states as the controller does."""

    def __init__(self, redis_url: str, cluster_id: uuid.UUID, node_ids: list[uuid.UUID]):
        self.redis_url, self.cluster_id = redis_url, cluster_id
        tracked = {n: TrackedNode(n, cluster_id, "n", AGENT, 0.0) for n in node_ids}
        self.intake = HeartbeatIntake(tracked, time.monotonic, time.time_ns)
        self.feed = live_publisher.LivePublisher(redis_url)

    def beat(self, node_id, queue_length: int = 1, watts: float = 20.0, instances=()) -> None:
        hb = agent_pb2.Heartbeat(node_id=str(node_id), timestamp_unix_ns=time.time_ns(), queue_length=queue_length,
                                 cpu_utilization=0.5, power_watts=watts, power_source=agent_pb2.POWER_SOURCE_MODEL)
        for iid, requests in instances:
            hb.instances.add(instance_id=iid, requests_completed=requests, exec_time_us=100.0,
                             exec_time_ema_us=100.0, cpu_share=0.5)
        encoded, rejected = self.intake.accept(AGENT, [hb])
        assert not rejected
        self.feed.add(encoded.nodes, encoded.live_items)

    async def state(self, node_id, state: str, previous: str) -> None:
        client = aioredis.Redis.from_url(self.redis_url)
        try:
            await live_publisher.publish_state(client, node_id, self.cluster_id, "n", state, previous)
        finally:
            await client.aclose()


async def _next(ws, timeout: float = 10.0) -> dict:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def _until(ws, predicate, timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        message = await _next(ws, max(0.1, deadline - time.monotonic()))
        if predicate(message):
            return message
        assert time.monotonic() < deadline, "the expected message did not come"


def _node(message: dict, node_id) -> dict | None:
    return next((n for n in message["nodes"] if n["id"] == str(node_id)), None)


def test_snapshot_then_heartbeats_and_state_changes_as_they_come(api_server, client, make_token, backing_services):
    cluster_id, nodes = _cluster(client, "live1")
    controller = Controller(backing_services["redis_url"], cluster_id, nodes)
    token = make_token("read", name="viewer")

    async def scenario():
        controller.beat(nodes[0], queue_length=3)  # before the client: the snapshot has it from the hash
        await controller.state(nodes[0], "suspect", "up")  # and this from the cluster's states hash
        await asyncio.sleep(0.2)
        async with connect(_ws_url(api_server, "live1"), subprotocols=_protocols(token)) as ws:
            assert ws.subprotocol == "e3.live.v1"
            snap = await _next(ws)
            assert snap["type"] == "snapshot" and snap["seq"] == 1 and snap["cluster"]["name"] == "live1"
            assert {n["id"] for n in snap["nodes"]} == {str(n) for n in nodes}
            first = _node(snap, nodes[0])
            assert first["queue_len"] == 3 and first["power"] == {"watts": 20.0, "source": "model"}
            assert first["kind"] in ("host", "smartnic") and first["server"] and first["ts"]
            assert first["state"] == "suspect" and first["state_since"]  # the record still says up
            assert _node(snap, nodes[1])["stale"] and _node(snap, nodes[1])["ts"] is None  # never reported
            assert snap["totals"]["nodes"] == len(nodes) and snap["server_time"]

            controller.beat(nodes[1], queue_length=42, watts=7.5)
            got = await _until(ws, lambda m: (_node(m, nodes[1]) or {}).get("queue_len") == 42)
            n1 = _node(got, nodes[1])
            assert got["type"] == "update" and not n1["stale"] and n1["age_ms"] < 60_000
            assert n1["power"] == {"watts": 7.5, "source": "model"}

            await controller.state(nodes[1], "suspect", "up")
            got = await _until(ws, lambda m: (_node(m, nodes[1]) or {}).get("state") == "suspect")
            assert _node(got, nodes[1])["state_since"]

            # no more heartbeats: the node turns stale without anyone publishing anything
            got = await _until(ws, lambda m: (_node(m, nodes[1]) or {}).get("stale") is True)
            assert _node(got, nodes[1])["queue_len"] == 42  # the old figure, marked as old
            assert got["totals"]["nodes_reporting"] == 0

        await controller.feed.close()

    asyncio.run(scenario())


def test_updates_are_coalesced_to_ten_a_second_with_the_last_values(api_server, client, admin_token,
                                                                      backing_services):
    cluster_id, nodes = _cluster(client, "live2")
    controller = Controller(backing_services["redis_url"], cluster_id, nodes)

    async def scenario():
        async with connect(_ws_url(api_server, "live2"), subprotocols=_protocols(admin_token)) as ws:
            assert (await _next(ws))["type"] == "snapshot"
            received: list[dict] = []

            async def read():
                async for raw in ws:
                    received.append(json.loads(raw))

            reader = asyncio.create_task(read())
            start = time.monotonic()
            for k in range(1, 101):  # 100 updates of 3 nodes in about a second
                for n in nodes:
                    controller.beat(n, queue_length=k)
                await asyncio.sleep(0.01)
            for _ in range(200):  # the last value arrives
                if any((_node(m, nodes[0]) or {}).get("queue_len") == 100 for m in received):
                    break
                await asyncio.sleep(0.05)
            elapsed = time.monotonic() - start
            reader.cancel()
            # the cap as a count over the window (ticks included), with one message of margin
            assert len(received) <= elapsed / 0.1 + 2, (len(received), elapsed)
            last = {}
            for m in received:
                for n in m["nodes"]:
                    last[n["id"]] = n["queue_len"]
            assert last == {str(n): 100 for n in nodes}  # every node's final value, none dropped
            seqs = [m["seq"] for m in received]
            assert seqs == list(range(2, 2 + len(seqs)))
        await controller.feed.close()

    asyncio.run(scenario())


def test_refusals_carry_a_close_code_and_a_reason(api_server, client, make_token):
    _cluster(client, "live3")

    async def closed_with(url: str, protocols: list[str]) -> tuple[int, str]:
        async with connect(url, subprotocols=protocols) as ws:
            with pytest.raises(ConnectionClosed) as info:
                await _next(ws)
            return info.value.rcvd.code, info.value.rcvd.reason

    async def scenario():
        url = _ws_url(api_server, "live3")
        code, reason = await closed_with(url, ["e3.live.v1"])
        assert code == 4401 and "e3.bearer." in reason
        code, reason = await closed_with(url, _protocols("e3_not-a-token"))
        assert code == 4401 and "invalid" in reason
        code, reason = await closed_with(_ws_url(api_server, "nowhere"), _protocols(make_token("read")))
        assert code == 4404 and "nowhere" in reason

    asyncio.run(scenario())


def test_sse_fallback_delivers_the_same_feed_and_refuses_before_it_starts(api_server, client, make_token,
                                                                           backing_services):
    cluster_id, nodes = _cluster(client, "live4")
    token = make_token("read")
    url = f"{api_server}/api/v1/clusters/live4/live/stream"
    assert httpx.get(url).status_code == 401
    r = httpx.get(f"{api_server}/api/v1/clusters/nowhere/live/stream", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 404 and r.json()["code"] == "not_found"

    controller = Controller(backing_services["redis_url"], cluster_id, nodes)

    async def scenario():
        async with httpx.AsyncClient(timeout=httpx.Timeout(5.0, read=10.0)) as http:
            async with http.stream("GET", url, headers={"Authorization": f"Bearer {token}"}) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                events, fields = [], {}
                published = False
                async for line in response.aiter_lines():
                    if line:
                        name, _, value = line.partition(": ")
                        fields[name] = value
                        continue
                    message = json.loads(fields["data"])
                    assert message["type"] == fields["event"]
                    events.append(message)
                    fields = {}
                    if not published:
                        controller.beat(nodes[0], queue_length=77)
                        published = True
                    if (_node(message, nodes[0]) or {}).get("queue_len") == 77:
                        break
                assert events[0]["type"] == "snapshot" and len(events[0]["nodes"]) == len(nodes)
                assert events[-1]["type"] == "update"
        await controller.feed.close()

    asyncio.run(scenario())
    # the last resort, polling: the same snapshot once
    snap = httpx.get(f"{api_server}/api/v1/clusters/live4/live/snapshot",
                     headers={"Authorization": f"Bearer {token}"}).json()
    assert snap["type"] == "snapshot" and _node(snap, nodes[0])["queue_len"] == 77


def test_application_figures_from_its_instances_heartbeats(api_server, client, worker, admin_token,
                                                           backing_services):
    app = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "liveapp"},
           "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0,
                               "constraints": {"platform": "host"}},
                              {"id": "kv", "service": "kvs", "replicas": 0}],
                    "edges": [{"from": "gw", "to": "kv"}]}}
    deployment_id = deploy_on_new_cluster(client, "live5", app, servers=2)
    with session_scope() as session:
        cluster_id = session.scalar(select(Cluster.id).where(Cluster.name == "live5"))
        nodes = list(session.scalars(select(ComputeNode.id).where(ComputeNode.cluster_id == cluster_id)))
        instances = [(str(i.id), i.node_id, i.dag_node) for i in session.scalars(select(Instance))]
    controller = Controller(backing_services["redis_url"], cluster_id, nodes)

    async def scenario():
        async with connect(_ws_url(api_server, "live5"), subprotocols=_protocols(admin_token)) as ws:
            snap = await _next(ws)
            assert {i["id"] for i in snap["instances"]} == {i[0] for i in instances}
            (entry,) = [a for a in snap["applications"] if a["deployment_id"] == deployment_id]
            assert entry["application"] == "liveapp" and entry["throughput_rps"] is None  # nothing reported yet
            assert entry["predicted"]["source"] == "model" and entry["latency"]["p99_us"] is None

            def got_rate(m):
                apps = [a for a in m["applications"] if a["deployment_id"] == deployment_id]
                return apps and apps[0]["throughput_rps"] and apps[0]["complete"]

            async def beats():
                while True:
                    for n in nodes:
                        controller.beat(n, instances=[(iid, 5) for iid, node, _ in instances if node == n])
                    await asyncio.sleep(0.05)

            task = asyncio.create_task(beats())
            try:
                got = await _until(ws, got_rate, timeout=15)
            finally:
                task.cancel()
            (figures,) = [a for a in got["applications"] if a["deployment_id"] == deployment_id]
            # 5 requests per 50 ms at the gateway's one primary: about 100/s (the loop's own pace varies)
            assert 20 < figures["throughput_rps"] < 200
            assert figures["power"]["source"] == "model" and figures["joules_per_request"] > 0
            assert figures["latency"]["avg_us"] == pytest.approx(200.0)  # gw then kv, 100 µs each
            assert got["totals"]["requests_per_joule"] > 0
        await controller.feed.close()

    asyncio.run(scenario())
