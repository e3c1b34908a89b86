"""The live channel's source: one Redis subscription per API process, fanned out to every connected client.

`LiveHub` subscribes to `e3:live` (e3.live.channel) when its first client arrives and unsubscribes when
its last one leaves. Per cluster watched it keeps the recent heartbeats of each node (`NodeWindow`), their
states, and the cluster's metadata from the database (nodes, servers, instances and their applications),
reloaded every `META_REFRESH_S`. A cluster's state starts from the latest heartbeat per node in
`e3:latest:<cluster>` and the states in `e3:states:<cluster>`; heartbeats are merged by timestamp, so the
order of the two does not matter.

Each client is a `Subscription`: a set of nodes changed since its last message, and a wake-up. Its
`messages()` yields a snapshot, then updates no more often than every `MIN_INTERVAL_S` (10 a second) and at
least every `TICK_S` (so a node that stopped reporting turns stale without any message about it). An update
carries the latest figures of every node changed since the previous one: however many heartbeats or state
changes came in between, what is sent is the last, so coalescing drops no state change's outcome.
"""

import asyncio
import json
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator
from datetime import datetime, timezone

import redis.asyncio as aioredis
from sqlalchemy.orm import Session

from e3 import catalog
from e3.core.db import in_session
from e3.core.errors import NotFound
from e3.energy.server_split import node_idle_watts
from e3.live import aggregate as agg
from e3.live.channel import LIVE_CHANNEL, latest_key, states_key
from e3.schemas.dag import ApplicationSpec
from e3.services.cluster_read import placement_fingerprint, read_node_arrays, read_placed
from e3.services.clusters import get_cluster

log = logging.getLogger(__name__)
MIN_INTERVAL_S = 0.1  # at most 10 messages a second per client
TICK_S = 0.25  # at least 4 a second, so staleness shows within STALE_AFTER_MS + TICK_S
META_REFRESH_S = 5.0
RETRY_S = 1.0  # after Redis was lost
LINGER_S = 10.0  # a cluster nobody watches any more is kept this long


def load_meta(session: Session, cluster_name: str) -> tuple[agg.ClusterMeta, dict[str, tuple[str, None]]]:
    """The cluster's nodes, instances and deployed applications, and each node's state (the record's).
    Raises NotFound for an unknown cluster. Blocking."""
    cluster = get_cluster(session, cluster_name)
    nodes = read_node_arrays(session, cluster.id)
    deployments, instances = read_placed(session, cluster.id)
    meta = agg.ClusterMeta(id=str(cluster.id), name=cluster.name)
    types = catalog.server_types()
    idle: dict[tuple, float] = {}
    nics = Counter(server for server, kind in zip(nodes["server_id"], nodes["kind"]) if kind == "smartnic")
    for node_id, name, kind, core_class, server_id, server, server_type, rack in zip(
            nodes["id"], nodes["name"], nodes["kind"], nodes["core_class"], nodes["server_id"], nodes["server"],
            nodes["server_type"], nodes["rack"]):
        idle_key = (kind, server_type, nics[server_id])  # a few kinds of node in 50,000
        if idle_key not in idle:
            idle[idle_key] = node_idle_watts(
                kind, float(types[server_type].idle_watts) if server_type in types else 0.0, nics[server_id])
        meta.nodes[node_id] = agg.NodeMeta(id=node_id, name=name, kind=kind, server=server, rack=rack,
                                           core_class=core_class, idle_watts=idle[idle_key])
    states = {node_id: (state, None) for node_id, state in zip(nodes["id"], nodes["state"])}
    for dep in deployments:
        spec = ApplicationSpec.from_document(dep.spec)
        meta.apps[str(dep.id)] = agg.AppMeta(
            deployment_id=str(dep.id), application=dep.application, version=dep.version,
            dag_nodes=tuple(n.id for n in spec.nodes),
            edges=tuple((e.from_, e.to) for e in spec.edges), predicted=dep.prediction)
    for inst in instances:
        app = meta.apps[str(inst.deployment_id)]
        meta.instances[str(inst.id)] = agg.InstanceMeta(
            id=str(inst.id), node_id=str(inst.node_id), deployment_id=app.deployment_id,
            application=app.application, dag_node=inst.dag_node, service=inst.service, role=inst.role,
            shard=inst.shard, replica=inst.replica, reserved_cores=inst.cpu_cores)
    return meta, states


def load_meta_if_changed(session: Session, cluster_name: str, known: str | None) -> tuple[str, tuple | None]:
    """(the cluster's placement fingerprint, `load_meta`'s answer or None when the fingerprint is `known`): a
    quick read first, the whole one (half a second at 50,000 nodes) only when something changed. The fingerprint
    is read first, so a change between the two reads is seen again next time, never missed. Blocking."""
    fingerprint = placement_fingerprint(session, get_cluster(session, cluster_name).id)
    return fingerprint, None if fingerprint == known else load_meta(session, cluster_name)


def _meta_key(meta: agg.ClusterMeta) -> tuple:
    return (tuple(meta.nodes.values()), tuple(meta.instances.values()),
            tuple((a.deployment_id, a.version) for a in meta.apps.values()))


def server_time(now: float) -> str:
    return datetime.fromtimestamp(now, timezone.utc).isoformat()


class ClusterLive:
    """One watched cluster: metadata, per-node heartbeat windows and states, and its clients."""

    def __init__(self, meta: agg.ClusterMeta, states: dict, fingerprint: str | None = None):
        self.meta, self.states = meta, dict(states)
        self.fingerprint = fingerprint  # placement_fingerprint when `meta` was read
        self.windows: dict[str, agg.NodeWindow] = {}
        self.subscriptions: set["Subscription"] = set()
        self.meta_key = _meta_key(meta)
        self.idle_since = 0.0
        self._cached: tuple[float, tuple] | None = None

    @property
    def id(self) -> str:
        return self.meta.id

    def _changed(self, node_id: str) -> None:
        self._cached = None
        for sub in self.subscriptions:
            sub.dirty.add(node_id)
            sub.wake.set()

    def heartbeat(self, hb: dict) -> None:
        window = self.windows.get(hb["node_id"])
        if window is None:
            window = self.windows[hb["node_id"]] = agg.NodeWindow()
        if window.add(hb):
            self._changed(hb["node_id"])

    def node_state(self, node_id: str, state: str, since: str | None) -> None:
        self.states[node_id] = (state, since)
        self._changed(node_id)

    def set_meta(self, meta: agg.ClusterMeta, states: dict, fingerprint: str | None = None) -> None:
        self.fingerprint = fingerprint
        key = _meta_key(meta)
        if key == self.meta_key:
            return
        self.meta, self.meta_key, self._cached = meta, key, None
        for nid, st in states.items():
            self.states.setdefault(nid, st)
        for sub in self.subscriptions:
            sub.snapshot_due = True
            sub.wake.set()

    def node(self, node_id: str, now: float) -> dict:
        state, since = self.states.get(node_id, ("up", None))
        return agg.node_view(self.meta.nodes[node_id], self.windows.get(node_id), state, since, now)

    def aggregates(self, now: float) -> tuple[list[dict], dict]:
        """Shared by the cluster's clients for up to 50 ms."""
        if self._cached is None or now - self._cached[0] > 0.05:
            self._cached = (now, agg.aggregate(self.meta, self.windows, now))
        return self._cached[1]


class Subscription:
    """One client's view of a cluster: what changed since its last message."""

    def __init__(self, cluster: ClusterLive):
        self.cluster = cluster
        self.dirty: set[str] = set()
        self.wake = asyncio.Event()
        self.snapshot_due = True
        self.seq = 0
        self._stale: dict[str, bool] = {}

    def _message(self, kind: str, now: float, nodes: list[dict]) -> dict:
        self.seq += 1
        apps, totals = self.cluster.aggregates(now)
        for n in nodes:
            self._stale[n["id"]] = n["stale"]
        return dict(type=kind, seq=self.seq, server_time=server_time(now), stale_after_ms=agg.STALE_AFTER_MS,
                    nodes=nodes, applications=apps, totals=totals)

    def next_message(self, now: float) -> dict:
        """The snapshot if one is due, else an update with the nodes changed since the last message (and those
        whose staleness flipped)."""
        c = self.cluster
        if self.snapshot_due:
            self.snapshot_due, self._stale = False, {}
            self.dirty.clear()
            msg = self._message("snapshot", now, [c.node(nid, now) for nid in c.meta.nodes])
            msg["cluster"] = dict(id=c.meta.id, name=c.meta.name)
            msg["instances"] = [dict(id=i.id, node_id=i.node_id, deployment_id=i.deployment_id,
                                     application=i.application, dag_node=i.dag_node, service=i.service,
                                     role=i.role, shard=i.shard, replica=i.replica)
                                for i in c.meta.instances.values()]
            return msg
        ids = {nid for nid in self.dirty if nid in c.meta.nodes}
        self.dirty.clear()
        for nid in c.meta.nodes:
            if nid not in ids and agg.is_stale(c.windows[nid].latest if nid in c.windows else None, now) \
                    != self._stale.get(nid):
                ids.add(nid)
        return self._message("update", now, [c.node(nid, now) for nid in c.meta.nodes if nid in ids])

    async def messages(self) -> AsyncIterator[dict]:
        """A snapshot, then updates: at most one per MIN_INTERVAL_S, at least one per TICK_S."""
        last = 0.0
        while True:
            wait = TICK_S - (time.monotonic() - last)
            if wait > 0 and not self.wake.is_set():
                try:
                    await asyncio.wait_for(self.wake.wait(), wait)
                except TimeoutError:
                    pass
            pause = MIN_INTERVAL_S - (time.monotonic() - last)
            if pause > 0:
                await asyncio.sleep(pause)
            self.wake.clear()
            last = time.monotonic()
            yield self.next_message(time.time())


class LiveHub:
    """The process's one subscription to `e3:live`, shared by all live clients."""

    def __init__(self, redis_url: str):
        self.redis_url = redis_url
        self.clusters: dict[str, ClusterLive] = {}  # cluster id -> state
        self._lock = asyncio.Lock()
        self._task: asyncio.Task | None = None
        self._subscribed = asyncio.Event()
        self._redis: aioredis.Redis | None = None

    @property
    def redis(self) -> aioredis.Redis:
        if self._redis is None:
            self._redis = aioredis.Redis.from_url(self.redis_url, socket_connect_timeout=2, decode_responses=True)
        return self._redis

    async def subscribe(self, cluster_name: str) -> Subscription:
        """A client of the cluster (NotFound if there is none so named); its first message is a snapshot."""
        watched = next((c for c in self.clusters.values() if c.meta.name == cluster_name), None)
        fingerprint, loaded = await asyncio.to_thread(in_session, load_meta_if_changed, cluster_name,
                                                      watched.fingerprint if watched else None)
        async with self._lock:
            if self._task is None:
                self._subscribed.clear()
                self._task = asyncio.get_running_loop().create_task(self._run(), name="live-hub")
            try:  # subscribed before the hashes are read: nothing published between is missed
                await asyncio.wait_for(self._subscribed.wait(), 5.0)
            except TimeoutError:
                log.warning("live channel: not subscribed to Redis yet; nodes show stale until it is")
            cluster = self.clusters.get(loaded[0].id) if loaded else watched
            if cluster is not None and self.clusters.get(cluster.id) is not cluster:
                cluster = None  # dropped while its fingerprint was read (nobody had watched it for LINGER_S)
            if cluster is None:
                if loaded is None:
                    fingerprint, loaded = await asyncio.to_thread(in_session, load_meta_if_changed, cluster_name, None)
                cluster = self.clusters[loaded[0].id] = ClusterLive(*loaded, fingerprint=fingerprint)
                await self._read_hashes(cluster)
            elif loaded:
                cluster.set_meta(*loaded, fingerprint=fingerprint)
            sub = Subscription(cluster)
            cluster.subscriptions.add(sub)
            return sub

    async def current_totals(self, cluster_name: str, settle_s: float = agg.RATE_WINDOW_S + 0.25) -> dict:
        """The cluster's totals now, as its dashboard shows them (NotFound if there is no such cluster). A cluster
        nobody watched starts from each node's latest heartbeat, and rates need a second of them: while its
        nodes report and it has applications, this waits up to `settle_s` for a throughput."""
        sub = await self.subscribe(cluster_name)
        try:
            deadline = time.monotonic() + settle_s
            while True:
                _, totals = sub.cluster.aggregates(time.time())
                if (totals["throughput_rps"] is not None or not totals["nodes_reporting"]
                        or not sub.cluster.meta.apps or time.monotonic() >= deadline):
                    return totals
                await asyncio.sleep(0.1)
        finally:
            self.unsubscribe(sub)

    def unsubscribe(self, sub: Subscription) -> None:
        """The client left. Its cluster's state is kept LINGER_S for clients that come back (a reconnect, a
        poll): their rates need the heartbeats of the last second. Synchronous, so a cancelled stream can
        call it from its clean-up."""
        cluster = sub.cluster
        cluster.subscriptions.discard(sub)
        if not cluster.subscriptions:
            cluster.idle_since = time.monotonic()
            asyncio.get_running_loop().call_later(LINGER_S, self._drop_if_idle, cluster)

    def _drop_if_idle(self, cluster: ClusterLive) -> None:
        if cluster.subscriptions or time.monotonic() - cluster.idle_since < LINGER_S * 0.99:
            return
        if self.clusters.get(cluster.id) is cluster:
            del self.clusters[cluster.id]
        if not self.clusters and self._task is not None:
            self._task.cancel()
            self._task = None

    async def _read_hashes(self, cluster: ClusterLive) -> None:
        """The cluster's latest heartbeat per node (`e3:latest:<cluster>`) and its nodes' states
        (`e3:states:<cluster>`): two reads, however many nodes."""
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hgetall(latest_key(cluster.id))
                pipe.hgetall(states_key(cluster.id))
                latest, states = await pipe.execute()
        except (aioredis.RedisError, OSError) as exc:
            log.warning("live channel: reading the nodes' latest state from Redis failed (%s)", exc)
            return
        for nid, item in latest.items():
            hb = agg.parse_heartbeat(json.loads(item)) if nid in cluster.meta.nodes else None
            if hb is not None:
                cluster.heartbeat(hb)
        for nid, item in states.items():
            if nid in cluster.meta.nodes:
                state = json.loads(item)
                cluster.node_state(nid, state["state"], state["since"])

    def _dispatch(self, raw: str) -> None:
        if not any(cid in raw for cid in self.clusters):
            return  # most of the traffic, at scale: clusters nobody watches
        msg = json.loads(raw)
        if msg.get("type") == "heartbeats":
            for item in msg.get("heartbeats", ()):
                cluster = self.clusters.get(item.get("cluster_id"))
                if cluster is not None and item.get("node_id") in cluster.meta.nodes:
                    hb = agg.parse_heartbeat(item)
                    if hb is not None:
                        cluster.heartbeat(hb)
        elif msg.get("type") == "node.state":
            cluster = self.clusters.get(msg.get("cluster_id"))
            if cluster is not None and msg.get("node_id") in cluster.meta.nodes:
                cluster.node_state(msg["node_id"], msg["state"], msg.get("ts"))

    async def _refresh(self) -> None:
        """Every META_REFRESH_S, the watched clusters' metadata again when their placement fingerprint changed
        (deployments, migrations, failovers change it); a change makes each client's next message a snapshot."""
        while True:
            await asyncio.sleep(META_REFRESH_S)
            for cluster in list(self.clusters.values()):
                try:
                    fingerprint, loaded = await asyncio.to_thread(in_session, load_meta_if_changed,
                                                                  cluster.meta.name, cluster.fingerprint)
                except NotFound:
                    continue  # deleted: its clients keep what they have until they leave
                except Exception as exc:
                    log.warning("live channel: reloading cluster '%s' failed (%s)", cluster.meta.name, exc)
                    continue
                if loaded:
                    cluster.set_meta(*loaded, fingerprint=fingerprint)

    async def _run(self) -> None:
        refresher = asyncio.get_running_loop().create_task(self._refresh(), name="live-hub-refresh")
        try:
            await self._listen()
        finally:
            refresher.cancel()

    async def _listen(self) -> None:
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(LIVE_CHANNEL)
                if self._subscribed.is_set():  # again, after Redis was lost: catch up from the hashes
                    for cluster in list(self.clusters.values()):
                        await self._read_hashes(cluster)
                self._subscribed.set()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        try:
                            self._dispatch(message["data"])
                        except (ValueError, KeyError, TypeError) as exc:
                            log.warning("live channel: unreadable message on %s (%s)", LIVE_CHANNEL, exc)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis lost: clients see their nodes turn stale meanwhile
                log.warning("live channel: Redis subscription lost (%s); retrying in %.1f s", exc, RETRY_S)
                await asyncio.sleep(RETRY_S)
            finally:
                try:
                    await pubsub.aclose()
                except Exception:
                    pass


_hub: LiveHub | None = None


def hub(redis_url: str) -> LiveHub:
    """The process's hub (made on first use)."""
    global _hub
    if _hub is None:
        _hub = LiveHub(redis_url)
    return _hub
