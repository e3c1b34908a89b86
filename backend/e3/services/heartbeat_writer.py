"""Buffered heartbeat writes for the controller: one COPY per flush, every 100 ms or 5,000 rows."""

import asyncio
import logging
from collections.abc import Callable, Sequence

from e3.core.db import session_scope
from e3.services.heartbeats import ingest

log = logging.getLogger(__name__)


def write_rows(rows: Sequence[dict]) -> int:
    with session_scope() as session:
        return ingest(session, rows)


class HeartbeatWriter:
    """Collects rows from every stream and writes them in batches from a worker thread."""

    def __init__(self, interval_s: float = 0.1, max_rows: int = 5000, max_buffered: int = 100_000,
                 write: Callable[[Sequence[dict]], int] = write_rows):
        self.interval_s, self.max_rows, self.max_buffered = interval_s, max_rows, max_buffered
        self._write = write
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

    async def _run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._full.wait(), self.interval_s)
            except TimeoutError:
                pass
            self._full.clear()
            await self.flush()

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
