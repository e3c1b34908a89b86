"""Registrations written in batches (services.agents.mark_registered): every Register waiting while one batch's
transaction runs goes into the next, so agents resuming together (a controller died, its agents moved here) cost
a few transactions, not one per node each locking its cluster for the deploys. No timer: a lone Register is
written at once."""

import asyncio
import logging

from e3.core.aio import cancel_and_wait
from e3.core.db import in_session
from e3.core.db_errors import cured_by_retry
from e3.services import agents

log = logging.getLogger(__name__)
MAX_BATCH = 500  # registrations in one transaction
RETRIES = 3


class Registrations:
    def __init__(self, max_batch: int = MAX_BATCH):
        self.max_batch = max_batch
        self._pending: list[tuple[agents.Registration, asyncio.Future]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._writing: list[tuple[agents.Registration, asyncio.Future]] = []  # the batch being written
        self.batches = 0  # transactions written (for the log and tests)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="registrations")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None
        for _, waiting in self._writing + self._pending:  # none waits forever on a batch cut short
            if not waiting.done():
                waiting.set_exception(RuntimeError("the controller is stopping"))
        self._pending, self._writing = [], []

    async def mark(self, registration: agents.Registration) -> int:
        """Write the registration with the others waiting; its lease epoch (a failed transaction fails each)."""
        waiting = asyncio.get_running_loop().create_future()
        self._pending.append((registration, waiting))
        self._wake.set()
        return await waiting

    async def _write(self, batch: list) -> list[int]:
        """One transaction for the batch; tried again, up to RETRIES times, when the database chose it as a
        deadlock's victim or a lock wait timed out (core.db_errors.cured_by_retry)."""
        for attempt in range(RETRIES + 1):
            try:
                return await asyncio.to_thread(in_session, agents.mark_registered, [r for r, _ in batch])
            except Exception as exc:
                if attempt == RETRIES or not cured_by_retry(exc):
                    raise
                log.info("writing %d registrations: %s; trying again", len(batch), type(exc.orig).__name__)

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending[:self.max_batch], self._pending[self.max_batch:]
                self._writing = batch
                try:
                    epochs = await self._write(batch)
                except Exception as exc:  # each Register fails with it; its agent tries again
                    log.warning("writing %d registrations failed: %s", len(batch), exc)
                    for _, waiting in batch:
                        if not waiting.done():
                            waiting.set_exception(exc)
                    continue
                self.batches += 1
                if len(batch) > 1:
                    log.info("%d registrations written in one transaction", len(batch))
                for (_, waiting), epoch in zip(batch, epochs):
                    if not waiting.done():
                        waiting.set_result(epoch)
