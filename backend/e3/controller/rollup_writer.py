"""The telemetry rollups' writer (e3.rollup.steps; docs/agents.md "Telemetry rollups").

Every `every_s` (E3_ROLLUP_FLUSH_MS) it takes what the heartbeats added to their steps since the last
take and adds it to `node_rollups` and `instance_rollups` (services.telemetry_rollups), one transaction a
take. No step waits to close: every figure adds, so a step's later heartbeats are simply added to its row.

A write that fails (the database restarting) keeps its batch, first in line, and is retried on the next
tick, batches in the order they were taken (each its own transaction: one batch never holds a step twice).
Backpressure: once `max_pending_rows` wait (held, or in steps not taken yet), intake awaits `room()`
before taking more heartbeats, so the controller stops reading heartbeat streams and gRPC flow control
pushes back to the agents; nothing is dropped. (Rows only grow with new steps, so a stalled database
holds the pending rows still.) `flush()` returns once everything taken is written: a stream's summary
waits for it. On `stop()` what is left is taken and written. Hourly, day partitions older than the
retention (E3_HEARTBEAT_RETENTION_DAYS) are dropped, by the leading controller only.
"""

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from e3.core.aio import cancel_and_wait
from e3.controller.periodic_writer import RetentionSchedule, write_periodically
from e3.core.db import in_session
from e3.rollup.steps import InstanceRollup, NodeRollup, RollupSteps
from e3.services import telemetry_rollups

log = logging.getLogger(__name__)


@dataclass
class _Batch:
    nodes: list[NodeRollup]
    instances: list[InstanceRollup]

    @property
    def rows(self) -> int:
        return len(self.nodes) + len(self.instances)


class RollupWriter:
    def __init__(self, steps: RollupSteps, every_s: float = 1.0, retention_days: int | None = None,
                 retention_every_s: float = 3600.0, max_pending_rows: int = 500_000, retry_s: float = 0.5,
                 leads: Callable[[], bool] = lambda: True):
        """`leads()`: whether this controller leads (controller.leadership): only the leader applies retention."""
        self.steps, self.every_s, self.max_pending_rows, self.retry_s = steps, every_s, max_pending_rows, retry_s
        self.retention_days, self.retention_every_s = retention_days, retention_every_s
        self.retention = RetentionSchedule(retention_every_s, leads)
        self._pending: deque[_Batch] = deque()
        self._pending_rows = 0
        self._days: set[date] = set()  # days whose partitions exist
        self._lock = asyncio.Lock()
        self._room = asyncio.Event()
        self._room.set()
        self._task: asyncio.Task | None = None
        self.written_rows = 0
        self.failures = 0

    @property
    def pending_rows(self) -> int:
        return self._pending_rows

    async def tick(self) -> int:
        """Take what the heartbeats added so far and try to write everything held, once. Returns the rows
        written; what could not be written stays held (see `pending_rows`)."""
        async with self._lock:  # one write at a time: a held batch must never be written twice
            self._hold(_Batch(*self.steps.take()))
            return await self._write()

    async def flush(self) -> int:
        """Take what the heartbeats added so far and return once it is written (retrying every `retry_s`
        while the database refuses). Returns the rows written meanwhile."""
        written = await self.tick()
        while self._pending_rows:
            await asyncio.sleep(self.retry_s)
            async with self._lock:
                written += await self._write()
        return written

    async def room(self) -> None:
        """Return once fewer than `max_pending_rows` wait to be written, taken or not yet (at once, usually)."""
        while self._pending_rows + self.steps.untaken_rows >= self.max_pending_rows:
            self._room.clear()
            await self._room.wait()

    def _hold(self, batch: _Batch) -> None:
        if not batch.rows:
            return
        self._pending.append(batch)
        self._pending_rows += batch.rows
        if self._pending_rows >= self.max_pending_rows:
            log.warning("telemetry rollups: %d rows wait for the database; heartbeat streams wait until it "
                        "takes them", self._pending_rows)

    async def _write(self) -> int:
        written = 0
        while self._pending:
            batch = self._pending[0]
            days = telemetry_rollups.days_of(batch.nodes)
            try:
                await asyncio.to_thread(in_session, telemetry_rollups.add_rollups, batch.nodes, batch.instances,
                                        days - self._days)
            except Exception:
                self.failures += 1
                self._days.clear()  # a partition may have been dropped: recreate on the retry
                log.exception("telemetry rollups: writing %d rows failed; %d rows held, retrying", batch.rows,
                              self._pending_rows)
                break
            self._days |= days
            self._pending.popleft()
            self._pending_rows -= batch.rows
            written += batch.rows
        if self._pending_rows + self.steps.untaken_rows < self.max_pending_rows:
            self._room.set()
        self.written_rows += written
        return written

    async def apply_retention(self) -> list[str]:
        """Drop the day partitions older than the retention now (none without a retention); a failure is
        logged, not raised."""
        self.retention.ran()
        if not self.retention_days:
            return []
        cutoff = datetime.now(timezone.utc) - timedelta(days=self.retention_days)
        try:
            dropped = await asyncio.to_thread(in_session, telemetry_rollups.drop_partitions_before, cutoff)
        except Exception:
            log.exception("telemetry rollup retention failed; will retry in %.0f s", self.retention_every_s)
            return []
        if dropped:
            self._days.clear()
            log.info("telemetry rollup retention dropped %s", ", ".join(dropped))
        return dropped

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(
            write_periodically(self.every_s, self.tick, self.retention, self.apply_retention, "telemetry rollup flush"),
            name="rollup-writer")

    async def stop(self, timeout_s: float = 10.0) -> None:
        """Write what is left (giving up after `timeout_s`), then stop."""
        await cancel_and_wait(self._task)
        self._task = None
        try:
            await asyncio.wait_for(self.flush(), timeout_s)
        except TimeoutError:
            pass  # what is still held is said below
        if self._pending_rows:
            log.error("telemetry rollups: %d rows not written at stop (the database did not take them)",
                      self._pending_rows)
