"""The live feed's metadata (live/hub.py): read again when the cluster's placement changed, and not otherwise
(at 50,000 nodes a read takes half a second of the API's process, every META_REFRESH_S)."""

import asyncio
import time

from helpers import deploy_on_new_cluster
from sqlalchemy import select, update

from e3.core.db import session_scope
from e3.live import hub as live_hub
from e3.models import ComputeNode, Instance

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "watched"},
       "spec": {"nodes": [{"id": "kv", "service": "kvs", "shards": 1, "replicas": 0}], "edges": []}}


def test_the_metadata_is_read_again_only_after_a_change(client, worker, backing_services, monkeypatch):
    deploy_on_new_cluster(client, "watched", APP)
    monkeypatch.setattr(live_hub, "META_REFRESH_S", 0.1)
    reads = []
    whole_read = live_hub.load_meta
    monkeypatch.setattr(live_hub, "load_meta", lambda *a: reads.append(time.monotonic()) or whole_read(*a))
    with session_scope() as session:
        instance, node = session.execute(select(Instance.id, Instance.node_id)).one()
        elsewhere = session.scalar(select(ComputeNode.id).where(ComputeNode.id != node))

    async def watch():
        hub = live_hub.LiveHub(backing_services["redis_url"])
        sub = await hub.subscribe("watched")
        messages = sub.messages()
        snapshot = await anext(messages)
        assert [i["node_id"] for i in snapshot["instances"]] == [str(node)]
        await asyncio.sleep(1.0)  # about ten refreshes, nothing changed
        unchanged = len(reads)
        with session_scope() as session:
            session.execute(update(Instance).where(Instance.id == instance).values(node_id=elsewhere))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            message = await asyncio.wait_for(anext(messages), 5)
            if message["type"] == "snapshot":
                break
        hub.unsubscribe(sub)
        return unchanged, message

    unchanged, message = asyncio.run(watch())
    assert unchanged == 1, "read again with nothing changed"
    assert message["type"] == "snapshot" and [i["node_id"] for i in message["instances"]] == [str(elsewhere)]
    assert len(reads) == 2


def test_a_cluster_dropped_while_its_fingerprint_is_read_is_watched_again(client, worker, backing_services,
                                                                        monkeypatch):
    """A client arriving as the cluster's linger ends: the cluster is dropped while its fingerprint is read (no
    change, so no metadata); the client must get a cluster the hub feeds, not the dropped one."""
    deploy_on_new_cluster(client, "watched", APP)
    read = live_hub.load_meta_if_changed

    async def watch():
        hub = live_hub.LiveHub(backing_services["redis_url"])
        first = await hub.subscribe("watched")
        hub.unsubscribe(first)
        loop = asyncio.get_running_loop()

        def drop():
            first.cluster.idle_since = 0.0
            hub._drop_if_idle(first.cluster)

        def read_then_drop(session, name, known):
            answer = read(session, name, known)
            if known is not None:  # the second client's read: the linger ends meanwhile
                loop.call_soon_threadsafe(drop)
                time.sleep(0.2)
            return answer

        monkeypatch.setattr(live_hub, "load_meta_if_changed", read_then_drop)
        second = await hub.subscribe("watched")
        fed = hub.clusters.get(second.cluster.id) is second.cluster
        hub.unsubscribe(second)
        return fed, second.cluster is not first.cluster

    fed, anew = asyncio.run(watch())
    assert fed and anew
