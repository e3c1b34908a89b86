"""Buffered heartbeat writes for the controller, with backpressure, and the retention policy.

Intake (controller.heartbeat_intake) hands over each batch already formatted as COPY text; the writer
COPYs what has accumulated from a worker thread, as soon as `max_rows` wait or `interval_s` after the
oldest arrived (at most `max_copy_rows` per COPY). Rows are written in arrival order, so "written up to
row n" is one counter: `flush()` waits until every row added before it is in the database.

Backpressure: at most `max_buffered` rows are held (waiting or being written). Intake awaits `room()`
before adding, so when the database falls behind the controller stops reading heartbeat streams and
gRPC flow control pushes back to the agents; nothing is dropped and the lag stays bounded. A failed COPY
keeps its rows first in line and is retried every `retry_s` (the database may be restarting); meanwhile
intake waits once the buffer is full.

Partitions: the day partitions written to are remembered, so a COPY only creates (CREATE TABLE IF NOT
EXISTS) a day it has not written yet; any failure forgets them all, so a partition dropped behind the
writer's back is recreated by the retry. Retention drops day partitions older than the retention period,
hourly.
"""

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from datetime import datetime, timedelta, timezone

from e3.core.aio import cancel_and_wait
from e3.core.db import session_scope
from e3.services.heartbeats import copy_text, drop_partitions_before

log = logging.getLogger(__name__)


def write_text(chunks: Sequence[str], new_days: Collection[int]) -> None:
    """One COPY of formatted rows, in one transaction; creates the day partitions in `new_days` first."""
    with session_scope() as session:
        copy_text(session, chunks, new_days)


def drop_expired(retention_days: int) -> list[str]:
    """Drop the day partitions that ended more than `retention_days` ago; returns their names."""
    with session_scope() as session:
        return drop_partitions_before(session, datetime.now(timezone.utc) - timedelta(days=retention_days))


class HeartbeatWriter:
    """Collects formatted rows from every stream and COPYs them from a worker thread, in arrival order."""

    def __init__(self, interval_s: float = 0.1, max_rows: int = 2000, max_buffered: int = 12_000,
                 write: Callable[[Sequence[str], Collection[int]], None] = write_text,
                 retention_days: int | None = None, retention_every_s: float = 3600.0,
                 max_copy_rows: int = 3_000, retry_s: float = 0.5):
        self.interval_s, self.max_rows, self.max_buffered = interval_s, max_rows, max_buffered
        self.max_copy_rows, self.retry_s = max_copy_rows, retry_s
        self._write = write
        self.retention_days, self.retention_every_s = retention_days, retention_every_s
        self._retained_at: float | None = None  # monotonic time of the last retention pass
        self._chunks: deque[tuple[str, int, Collection[int], float]] = deque()  # text, rows, days, added at
        self._buffered = 0  # rows held: waiting or being written
        self._added = 0  # rows ever added
        self._partitions: set[int] = set()  # days (since the epoch) whose partition exists
        self._flush_to = 0  # flush() wants rows up to this one written now
        self._waiters: list[tuple[int, asyncio.Future]] = []
        self._wake = asyncio.Event()
        self._room = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task | None = None
        self.written = 0  # rows written, in order: rows 1..written are in the database
        self.failures = 0
        self.dropped = 0  # rows still held when stop() gave up on the database

    @property
    def buffered(self) -> int:
        return self._buffered

    def add(self, text: str, rows: int, days: Collection[int]) -> int:
        """Queue `rows` rows of COPY text whose timestamps fall on `days`. Returns the number of the last
        row (flush() waits for it). Call `room()` first: this never refuses."""
        if rows:
            self._chunks.append((text, rows, days, time.monotonic()))
            self._buffered += rows
            self._added += rows
            if self._buffered >= self.max_rows:
                self._wake.set()
        return self._added

    async def room(self) -> None:
        """Return once fewer than `max_buffered` rows are held (at once, usually)."""
        while self._buffered >= self.max_buffered:
            self._room.clear()
            self._wake.set()
            await self._room.wait()

    async def flush(self) -> int:
        """Wait until every row added so far is written (retrying failed COPYs). Returns rows written meanwhile."""
        target, before = self._added, self.written
        if self.written >= target:
            return 0
        if self._task is None or self._task.done():  # not started: write here
            while self.written < target:
                if not await self._write_some():
                    await asyncio.sleep(self.retry_s)
            return self.written - before
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((target, future))
        self._flush_to = max(self._flush_to, target)
        self._wake.set()
        await future
        return self.written - before

    async def _write_some(self) -> bool:
        """One COPY of the oldest rows (up to max_copy_rows); False when it failed (rows kept, first in line)."""
        async with self._lock:
            if not self._chunks:
                return True
            taken, rows = [], 0
            while self._chunks and (not taken or rows + self._chunks[0][1] <= self.max_copy_rows):
                chunk = self._chunks.popleft()
                taken.append(chunk)
                rows += chunk[1]
            days = set().union(*(c[2] for c in taken))
            try:
                await asyncio.to_thread(self._write, [c[0] for c in taken], days - self._partitions)
            except Exception:
                self._chunks.extendleft(reversed(taken))
                self._partitions.clear()  # a partition may have been dropped: recreate on the retry
                self.failures += 1
                log.exception("heartbeat COPY of %d rows failed (%d rows held); retrying in %.1f s", rows,
                              self._buffered, self.retry_s)
                return False
            self._partitions |= days
            self.written += rows
            self._buffered -= rows
            if self._waiters:
                done = [w for w in self._waiters if w[0] <= self.written]
                if done:
                    self._waiters = [w for w in self._waiters if w[0] > self.written]
                    for _, future in done:
                        if not future.done():
                            future.set_result(None)
            if self._buffered < self.max_buffered:
                self._room.set()
            return True

    def _due(self) -> float:
        """Seconds until the next COPY is due (0: now)."""
        if not self._chunks:
            return self.interval_s
        if self._buffered >= self.max_rows or self._flush_to > self.written:
            return 0.0
        return max(0.0, self._chunks[0][3] + self.interval_s - time.monotonic())

    async def apply_retention(self) -> list[str]:
        """Drop expired day partitions now (in a worker thread); a failure is logged, not raised."""
        self._retained_at = time.monotonic()
        try:
            dropped = await asyncio.to_thread(drop_expired, self.retention_days)
        except Exception:
            log.exception("heartbeat retention failed; will retry in %.0f s", self.retention_every_s)
            return []
        if dropped:
            self._partitions.clear()
            log.info("heartbeat retention dropped %s", ", ".join(dropped))
        return dropped

    async def _run(self) -> None:
        while True:
            if self.retention_days and (self._retained_at is None
                                        or time.monotonic() - self._retained_at >= self.retention_every_s):
                await self.apply_retention()
            self._wake.clear()
            if (wait := self._due()) > 0:
                try:
                    await asyncio.wait_for(self._wake.wait(), wait)
                except TimeoutError:
                    pass
                continue
            if not await self._write_some():
                await asyncio.sleep(self.retry_s)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="heartbeat-writer")

    async def stop(self, timeout_s: float = 10.0) -> None:
        """Write what is held (giving up after `timeout_s` if the database is unreachable), then stop."""
        try:
            await asyncio.wait_for(self.flush(), timeout_s)
        except TimeoutError:
            self.dropped += self._buffered
            log.error("heartbeat writer stopped with %d rows not written (the database did not take them)",
                      self._buffered)
        await cancel_and_wait(self._task)
        self._task = None
