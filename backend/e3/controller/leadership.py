"""Which controller leads (docs/controller-scale-out.md §5): the one holding a Postgres session-level advisory lock
(LEADER_LOCK_KEY) on a connection of its own. What must happen once for the whole system, however many
controllers run, runs only while `is_leader`: the commands' sweep (controller.command_streams) and the
retention of rollups and energy history (controller.rollup_writer, controller.energy_rollups).

Every `every_s` (0.25 s) it tries the lock when it does not hold it (`pg_try_advisory_lock`: never waits), and
checks its connection when it does (`SELECT 1`). Postgres releases a session lock when the session ends, so a
controller that dies or loses its connection loses the lead with it, and another takes it at its next try:
Postgres, not this code, does the mutual exclusion. A connection that fails ends the lead here at once (the
lock may already be someone else's), and the next try opens a new one.

**The lock breaker.** A paused leader (SIGSTOP, a VM frozen) keeps its session and so its lock: Postgres sees an
idle client, not a dead one, and nobody would lead until it resumed. So the lock connection names its controller
(`application_name` `e3-leader:<controller id>`, updated when the controller's id changes after a lapse), and a
contender that fails to take the lock looks up its holder (`pg_locks` + `pg_stat_activity`): if the holder's
controller lease has expired (its row gone or `lease_expires_at` past, Postgres's clock), it ends that session
(`pg_terminate_backend`) and takes the lock at its next try. A holder that names no controller (another tool,
an older E3) is left alone. The old leader, when it resumes, finds its connection gone at its next check and
stops leading at once; what it had started meanwhile runs in sessions of its own and must stand on its own:
the sweep and the retentions are idempotent, and its state writes check the node's lease in their
transaction (controller.agent_hub).
"""

import asyncio
import logging
import uuid
from collections.abc import Callable

import psycopg

from e3.core.aio import cancel_and_wait
from e3.core.db import libpq_url

log = logging.getLogger(__name__)
LEADER_LOCK_KEY = 0x45334C45_00000001  # "E3LE" in the high half: apart from the migrations' "E3MG" keys
APPLICATION_PREFIX = "e3-leader:"
# the session holding the lock (a bigint key: high half in classid, low half in objid), with its controller's
# lease, if it names one: live, expired, or its row gone (NULL)
_HOLDER = ("SELECT a.pid, a.application_name, (SELECT c.lease_expires_at > now() FROM controllers c"
           "  WHERE c.id::text = substr(a.application_name, %(plen)s + 1)) AS live"
           " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
           " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
           " AND (l.classid::bigint << 32) + l.objid::bigint = %(key)s")


class Leadership:
    def __init__(self, database_url: str, name: str, every_s: float = 0.25,
                 on_change: Callable[[bool], None] = lambda leading: None, key: int = LEADER_LOCK_KEY,
                 controller_id: Callable[[], uuid.UUID | None] = lambda: None):
        """`name`: this controller, for the log; `on_change(leading)`: called when the lead is won or lost;
        `key`: the advisory lock (another one keeps a test's controllers apart from any other); `controller_id`:
        this controller's id now (its lease's row: what a contender checks before breaking the lock)."""
        self.database_url, self.name, self.every_s, self.on_change = database_url, name, every_s, on_change
        self.key, self.controller_id = key, controller_id
        self._named: uuid.UUID | None = None  # the id the connection's application_name carries
        self.broken = 0  # paused leaders' sessions this controller ended
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
                self._named = None
            await self._name_connection()
            if self._leading:
                await self._conn.execute("SELECT 1")
            else:
                row = await (await self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,))).fetchone()
                if row[0]:
                    self._set(True)
                else:
                    await self._break_a_paused_leader()
        except (psycopg.Error, OSError) as exc:
            if self._leading:
                log.error("controller %s: the leader's database connection failed (%s): no longer leading",
                          self.name, exc)
            self._set(False)
            await self._close()
        return self._leading

    async def _name_connection(self) -> None:
        """The connection's application_name names this controller's id (what a contender reads)."""
        current = self.controller_id()
        if current is not None and current != self._named:
            await self._conn.execute("SELECT set_config('application_name', %s, false)",
                                     (f"{APPLICATION_PREFIX}{current}",))
            self._named = current

    async def _break_a_paused_leader(self) -> None:
        """The lock is held: end its session if it names a controller whose lease has expired."""
        holder = await (await self._conn.execute(_HOLDER, {"key": self.key,
                                                           "plen": len(APPLICATION_PREFIX)})).fetchone()
        if holder is None:
            return  # released meanwhile: the next try takes it
        pid, application, live = holder
        if not (application or "").startswith(APPLICATION_PREFIX) or live:
            return  # a live leader, or a session that names no controller of ours: left alone
        await self._conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
        self.broken += 1
        log.warning("controller %s: the leader's lock was held by %s, whose lease has expired (paused or cut off): "
                    "its session ended, the lead is taken at the next try", self.name,
                    application[len(APPLICATION_PREFIX):])

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
