"""The controller's Prometheus families, rendered from its energy ledger every `interval_s` into Redis
(e3.metrics.controller_key, listed in CONTROLLERS_KEY), where the API's /metrics appends them to its own (docs/energy.md, "Prometheus
metrics").

Rendered and compressed (e3.metrics.gzip_join) in a worker thread from a snapshot taken on the loop, so
heartbeat intake goes on meanwhile. The key lives three intervals: a controller that stops or dies takes its
figures with it within that, never leaving them frozen. Cluster names are read from the database when a
cluster id is new, and every `names_max_age_s`.
"""

import asyncio
import logging
import time
from collections.abc import Callable, Mapping

import redis.asyncio as aioredis

from e3.core.aio import cancel_and_wait
from e3.core.db import in_session
from e3.metrics import CONTROLLERS_KEY, controller_key
from e3.metrics.gzip_join import DeflatePart, deflate_part
from e3.metrics.ledger_exposition import LedgerExposition, LedgerSnapshot, NodeFigures
from e3.services.metrics import cluster_names

log = logging.getLogger(__name__)
SNAPSHOT_SLICE = 500  # nodes read between two turns of the loop (a few milliseconds)


class MetricsExport:
    def __init__(self, ledger, redis: aioredis.Redis, interval_s: float, names_max_age_s: float = 60.0,
                 clock=time.monotonic, counts_requests: Callable[[str], bool | None] = lambda instance_id: None,
                 rejected: Mapping[str, int] | None = None, name: str = "controller",
                 watches: Callable[[str], bool] = lambda node_id: True):
        """`counts_requests(instance id)`: whether its requests are its application's (EnergyRollups knows);
        `rejected`: the heartbeats refused so far, by reason (the hub's count); `name`: this controller's, its
        key in Redis; `watches(node id)`: whether this controller watches the node now (only those have their
        watts exported: a node that moved to another controller has its current watts there)."""
        self.ledger, self.redis, self.interval_s = ledger, redis, interval_s
        self.name, self.key, self.watches = name, controller_key(name), watches
        self.rejected = rejected if rejected is not None else {}
        self.counts_requests = counts_requests
        self.names_max_age_s, self.clock = names_max_age_s, clock
        self.exposition = LedgerExposition()
        self.cluster_names: dict[str, str] = {}
        self._names_read_at = float("-inf")
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="metrics-export")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        try:
            async with self.redis.pipeline(transaction=True) as pipe:  # stopped: its figures go at once
                pipe.delete(self.key)
                pipe.zrem(CONTROLLERS_KEY, self.name)
                await pipe.execute()
        except Exception:
            log.warning("removing the controller's metrics from Redis failed", exc_info=True)

    async def export_once(self) -> int:
        """Render the ledger as it is now and store it; returns the text's size in bytes (uncompressed)."""
        snapshot = await self._snapshot()
        if not snapshot.cluster_ids() <= self.cluster_names.keys() \
                or self.clock() - self._names_read_at >= self.names_max_age_s:
            self.cluster_names = await asyncio.to_thread(in_session, cluster_names)
            self._names_read_at = self.clock()
        part = await asyncio.to_thread(self._render, snapshot, dict(self.cluster_names))
        ttl_ms = max(1, round(3 * self.interval_s * 1000))
        now_ms = round(time.time() * 1000)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.key, mapping=part.fields())
            pipe.pexpire(self.key, ttl_ms)
            pipe.zadd(CONTROLLERS_KEY, {self.name: now_ms + ttl_ms})
            pipe.zremrangebyscore(CONTROLLERS_KEY, "-inf", now_ms)  # controllers that died
            await pipe.execute()
        return part.size

    async def _snapshot(self) -> LedgerSnapshot:
        """The ledger's figures, a slice of nodes at a time: heartbeats are taken in between (5,000 nodes at
        once held the loop for tens of milliseconds)."""
        items = list(self.ledger.nodes.items())
        figures: list[NodeFigures] = []
        for start in range(0, len(items), SNAPSHOT_SLICE):
            figures += [NodeFigures.of(node_id, n, current=self.watches(node_id))
                        for node_id, n in items[start:start + SNAPSHOT_SLICE]]
            await asyncio.sleep(0)
        return LedgerSnapshot.assemble(self.ledger, figures, self.rejected)

    def _render(self, snapshot: LedgerSnapshot, names: dict[str, str]) -> DeflatePart:
        return deflate_part(self.exposition.render(snapshot, names, self.counts_requests).encode())

    async def _run(self) -> None:
        while True:
            try:
                await self.export_once()
            except Exception:
                log.exception("exporting the controller's metrics failed")
            await asyncio.sleep(self.interval_s)
