"""Buffered heartbeat writes for the controller: one COPY per flush, every 100 ms or 5,000 rows,
and the retention policy: day partitions older than the retention period are dropped hourly."""

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone

from e3.core.db import session_scope
from e3.services.heartbeats import drop_partitions_before, ingest

log = logging.getLogger(__name__)


def write_rows(rows: Sequence[dict]) -> int:
    with session_scope() as session:
        return ingest(session, rows)


def drop_expired(retention_days: int) -> list[str]:
    """Drop the day partitions that ended more than `retention_days` ago; returns their names."""
    with session_scope() as session:
        return drop_partitions_before(session, datetime.now(timezone.utc) - timedelta(days=retention_days))


class HeartbeatWriter:
    """Collects rows from every stream and writes them in batches from a worker thread."""

    def __init__(self, interval_s: float = 0.1, max_rows: int = 5000, max_buffered: int = 100_000,
                 write: Callable[[Sequence[dict]], int] = write_rows, retention_days: int | None = None,
                 retention_every_s: float = 3600.0):
        self.interval_s, self.max_rows, self.max_buffered = interval_s, max_rows, max_buffered
        self._write = write
        self.retention_days, self.retention_every_s = retention_days, retention_every_s
        self._retained_at: float | None = None  # monotonic time of the last retention pass
        self._rows: list[dict] = []
        self._full = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task | None = None
        self.written = 0
        self.dropped = 0

    def add(self, rows: Sequence[dict]) -> None:
        self._rows.extend(rows)
        if len(self._rows) >= self.max_rows:
            self._full.set()

    async def flush(self) -> int:
        """Write everything buffered so far (one COPY per max_rows). Returns rows written."""
        async with self._lock:
            total = 0
            while self._rows:
                rows, self._rows = self._rows[:self.max_rows], self._rows[self.max_rows:]
                try:
                    total += await asyncio.to_thread(self._write, rows)
                except Exception:
                    # Keep them for the next flush (the database may be restarting), within a bound.
                    self._rows[:0] = rows
                    if len(self._rows) > self.max_buffered:
                        excess = len(self._rows) - self.max_buffered
                        del self._rows[:excess]
                        self.dropped += excess
                        log.error("heartbeat buffer full: dropped the %d oldest rows", excess)
                    log.exception("heartbeat flush of %d rows failed; will retry", len(rows))
                    break
            self.written += total
            return total

    async def apply_retention(self) -> list[str]:
        """Drop expired day partitions now (in a worker thread); a failure is logged, not raised."""
        self._retained_at = time.monotonic()
        try:
            dropped = await asyncio.to_thread(drop_expired, self.retention_days)
        except Exception:
            log.exception("heartbeat retention failed; will retry in %.0f s", self.retention_every_s)
            return []
        if dropped:
            log.info("heartbeat retention dropped %s", ", ".join(dropped))
        return dropped

    async def _run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._full.wait(), self.interval_s)
            except TimeoutError:
                pass
            self._full.clear()
            await self.flush()
            if self.retention_days and (self._retained_at is None
                                        or time.monotonic() - self._retained_at >= self.retention_every_s):
                await self.apply_retention()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="heartbeat-writer")

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        await self.flush()
