"""Which controller leads (docs/controller-scale-out.md §5): the one holding a Postgres session-level advisory lock
(LEADER_LOCK_KEY) on a connection of its own. What must happen once for the whole system, however many
controllers run, runs only while `is_leader`: the commands' sweep (controller.command_streams) and the
retention of rollups and energy history (controller.rollup_writer, controller.energy_rollups).

Every `every_s` (0.25 s) it tries the lock when it does not hold it (`pg_try_advisory_lock`: never waits), and
checks its connection when it does (`SELECT 1`). Postgres releases a session lock when the session ends, so a
controller that dies or loses its connection loses the lead with it, and another takes it at its next try:
Postgres, not this code, does the mutual exclusion. A connection that fails ends the lead here at once (the
lock may already be someone else's), and the next try opens a new one.

Not yet: breaking the lock of a paused leader, whose session lives on (§5's lock breaker needs the controllers'
leases, §4).
"""

import asyncio
import logging
from collections.abc import Callable

import psycopg

from e3.core.aio import cancel_and_wait
from e3.core.db import libpq_url

log = logging.getLogger(__name__)
LEADER_LOCK_KEY = 0x45334C45_00000001  # "E3LE" in the high half: apart from the migrations' "E3MG" keys


class Leadership:
    def __init__(self, database_url: str, name: str, every_s: float = 0.25,
                 on_change: Callable[[bool], None] = lambda leading: None, key: int = LEADER_LOCK_KEY):
        """`name`: this controller, for the log; `on_change(leading)`: called when the lead is won or lost;
        `key`: the advisory lock (another one keeps a test's controllers apart from any other)."""
        self.database_url, self.name, self.every_s, self.on_change = database_url, name, every_s, on_change
        self.key = key
        self._conn: psycopg.AsyncConnection | None = None
        self._leading = False
        self._task: asyncio.Task | None = None

    @property
    def is_leader(self) -> bool:
        return self._leading

    async def step(self) -> bool:
        """One try (or check); returns whether this controller leads now."""
        try:
            if self._conn is None or self._conn.closed:
                self._conn = await psycopg.AsyncConnection.connect(libpq_url(self.database_url), autocommit=True)
            if self._leading:
                await self._conn.execute("SELECT 1")
            else:
                row = await (await self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,))).fetchone()
                if row[0]:
                    self._set(True)
        except (psycopg.Error, OSError) as exc:
            if self._leading:
                log.error("controller %s: the leader's database connection failed (%s): no longer leading",
                          self.name, exc)
            self._set(False)
            await self._close()
        return self._leading

    def _set(self, leading: bool) -> None:
        if leading != self._leading:
            self._leading = leading
            if leading:
                log.info("controller %s leads: it runs the sweep and the retentions", self.name)
            self.on_change(leading)

    async def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                await conn.close()
            except (psycopg.Error, OSError):
                pass

    async def _run(self) -> None:
        while True:
            await self.step()
            await asyncio.sleep(self.every_s)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="leadership")

    async def stop(self) -> None:
        """Give up the lead (closing the session releases the lock at once)."""
        await cancel_and_wait(self._task)
        self._task = None
        self._set(False)
        await self._close()
