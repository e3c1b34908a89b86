"""The controller's side of the live channel: accepted heartbeats and node states written to Redis.

The layout of what is written (keys, fields, messages) is e3.live.channel's, which the API's readers share.
"""


import asyncio
import json
import logging
import time
from datetime import datetime, timezone

import redis.asyncio as aioredis
from redis.connection import SSLConnection, parse_url

from e3.core.aio import cancel_and_wait
from e3.live.channel import LIVE_CHANNEL, latest_key, states_key

log = logging.getLogger(__name__)
_PUBLISH = f"*3\r\n$7\r\nPUBLISH\r\n${len(LIVE_CHANNEL)}\r\n{LIVE_CHANNEL}\r\n"


def _command(*args: str) -> bytes:
    out = [f"*{len(args)}\r\n"]
    for a in args:
        b = a.encode()
        out.append(f"${len(b)}\r\n{a}\r\n")
    return "".join(out).encode()


def _bulk(text: str) -> str:
    return f"${len(text)}\r\n{text}\r\n"  # ASCII: the items' JSON is escaped


def _write(latest: dict[str, dict[str, str]], items: list[str]) -> bytes:
    """One write: an HSET of each cluster's latest items, then the PUBLISH of them all."""
    out = []
    for cluster_id, by_node in latest.items():
        out.append(f"*{2 + 2 * len(by_node)}\r\n$4\r\nHSET\r\n{_bulk(latest_key(cluster_id))}")
        out.extend(_bulk(node_id) + _bulk(item) for node_id, item in by_node.items())
    body = '{"type": "heartbeats", "heartbeats": [' + ", ".join(items) + "]}"
    out.append(f"{_PUBLISH}{_bulk(body)}")
    return "".join(out).encode()


class LivePublisher:
    """Heartbeats to Redis, coalesced: the batches queued while a write is in flight go out in one write.

    A write is, per cluster heard from, one HSET of `e3:latest:<cluster>` with each node's latest heartbeat
    since the previous write, then one PUBLISH on `e3:live` of every heartbeat since then (e3.live.channel):
    a few commands a write, whatever the rate. It uses its own connection and writes the Redis protocol
    itself, reading the replies by counting lines: the per-command cost of a client library (redis-py
    packing every argument) was most of the controller's time. If Redis cannot be reached,
    what is queued is dropped (counted, logged) and the connection retried after `retry_s`: the live view
    lags, the database copy is what counts. While Redis is reachable but slower than intake, `room()`
    makes intake wait once `max_pending` heartbeats are queued.
    """

    def __init__(self, url: str, max_pending: int = 20_000, retry_s: float = 1.0):
        self.url, self.max_pending, self.retry_s = url, max_pending, retry_s
        self._latest: dict[str, dict[str, str]] = {}  # cluster id -> node id -> its latest item, queued
        self._items: list[str] = []  # every item queued, in order
        self._made: list[bytes] = []  # commands made elsewhere (the ingest front), queued as they are
        self._made_replies = 0  # the replies Redis gives them
        self._pending = 0  # heartbeats queued or being sent
        self._wake = asyncio.Event()
        self._room = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._reader = self._writer = None
        self._down_until = 0.0
        self.sent = 0
        self.dropped = 0

    @property
    def pending(self) -> int:
        return self._pending

    def add(self, nodes: list[tuple[str, str]], items: list[str]) -> None:
        """Queue one batch: its live JSON items and, for each, its (cluster id, node id)."""
        if not items:
            return
        latest = self._latest
        for (cluster_id, node_id), item in zip(nodes, items):
            by_node = latest.get(cluster_id)
            if by_node is None:
                by_node = latest[cluster_id] = {}
            by_node[node_id] = item
        self._items.extend(items)
        self._pending += len(items)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="live-feed")
        self._wake.set()

    def add_commands(self, commands: bytes, replies: int, heartbeats: int) -> None:
        """Queue the Redis commands the ingest front made for `heartbeats` items (front.proto's live_commands, the
        same commands `_write` makes), which Redis answers with `replies` replies; written as they are."""
        if not commands:
            return
        self._made.append(commands)
        self._made_replies += replies
        self._pending += heartbeats
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="live-feed")
        self._wake.set()

    async def room(self) -> None:
        while self._pending >= self.max_pending:
            self._room.clear()
            await self._room.wait()

    async def _connect(self) -> None:
        opts = parse_url(self.url)
        if "path" in opts:
            self._reader, self._writer = await asyncio.open_unix_connection(opts["path"])
        else:
            self._reader, self._writer = await asyncio.open_connection(
                opts.get("host", "localhost"), opts.get("port", 6379),
                ssl=True if opts.get("connection_class") is SSLConnection else None)
        hello = []
        if opts.get("password"):
            hello.append(_command("AUTH", *([opts["username"]] if opts.get("username") else []), opts["password"]))
        if opts.get("db"):
            hello.append(_command("SELECT", str(opts["db"])))
        if hello:
            self._writer.write(b"".join(hello))
            for _ in hello:
                line = await self._reader.readline()
                if not line.startswith(b"+"):
                    raise ConnectionError(f"Redis refused the connection setup: {line[:200]!r}")

    def _disconnect(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None

    async def _send(self, payload: bytes, replies: int) -> None:
        if self._writer is None:
            await self._connect()
        self._writer.write(payload)
        await self._writer.drain()
        errors, first_error, last = 0, b"", b"\n"
        while replies > 0:
            chunk = await self._reader.read(1 << 16)
            if not chunk:
                raise ConnectionError("Redis closed the connection")
            replies -= chunk.count(b"\n")  # every reply to HSET / PUBLISH is one line: ":<n>" or "-<error>"
            if (last == b"\n" and chunk[:1] == b"-") or b"\n-" in chunk:
                errors += 1
                if not first_error:
                    start = 0 if chunk[:1] == b"-" else chunk.find(b"\n-") + 1
                    first_error = chunk[start:chunk.find(b"\r", start)]
            last = chunk[-1:]
        if errors:
            log.error("Redis refused live-state commands (%s)", first_error[:200].decode(errors="replace"))

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._items or self._made:
                latest, items, n = self._latest, self._items, self._pending
                made, made_replies = self._made, self._made_replies
                self._latest, self._items, self._made, self._made_replies = {}, [], [], 0
                try:
                    if time.monotonic() < self._down_until:
                        raise ConnectionError("Redis was unreachable moments ago")
                    written = [_write(latest, items)] if items else []
                    await self._send(b"".join(written + made), (len(latest) + 1 if items else 0) + made_replies)
                    self.sent += n
                except Exception as exc:  # the live view lags; the database copy is what counts
                    self._disconnect()
                    if time.monotonic() >= self._down_until:
                        log.error("publishing %d heartbeats to Redis failed (%s); dropping live updates for %.1f s",
                                  n, exc, self.retry_s)
                        self._down_until = time.monotonic() + self.retry_s
                    self.dropped += n
                finally:
                    self._pending -= n
                    if self._pending < self.max_pending:
                        self._room.set()

    async def close(self) -> None:
        """Send what is queued (best effort), then close."""
        if self._task is not None:
            for _ in range(100):
                if not self._pending:
                    break
                await asyncio.sleep(0.01)
            await cancel_and_wait(self._task)
            self._task = None
        self._disconnect()


async def publish_state(client: aioredis.Redis, node_id, cluster_id, name: str, state: str,
                        previous: str | None) -> None:
    now = datetime.now(timezone.utc).isoformat()
    async with client.pipeline(transaction=False) as pipe:
        pipe.hset(states_key(cluster_id), str(node_id), json.dumps({"state": state, "since": now}))
        pipe.publish(LIVE_CHANNEL, json.dumps({"type": "node.state", "node_id": str(node_id),
                                               "cluster_id": str(cluster_id), "name": name, "state": state,
                                               "previous": previous, "ts": now}))
        await pipe.execute()
