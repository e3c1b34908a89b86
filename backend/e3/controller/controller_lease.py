"""This controller's row in `controllers` and its lease (services.leases; docs/controller-scale-out.md §4), renewed
every `renew_s` for `lease_s` ahead on Postgres's clock, in a thread of its own (a busy pool of database threads
never delays a renewal behind other work).

The controller counts on its lease only until `lease_s` (less a margin) after the start of its last successful
renewal, on its own monotonic clock: `holds()`. Past that (the process was paused, the database was slow) it
sends nothing that needs the lease before `confirm()` has renewed it. A renewal that finds the lease already
expired in the database does not extend it: the lease has **lapsed**, another controller may have taken this
one's nodes meanwhile, so it comes back as a new controller (a new row, a new id) and tells `on_lapse(old id,
new id)`, which takes over the nodes nobody took (a new epoch each) and lets the others go.
"""

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

from e3.core.aio import cancel_and_wait
from e3.core.db import in_session
from e3.services import leases

log = logging.getLogger(__name__)


async def _nothing(old_id: uuid.UUID | None, new_id: uuid.UUID | None) -> None:
    return None


class ControllerLease:
    def __init__(self, name: str, address: str, lease_s: float = 2.0, renew_s: float = 0.5,
                 on_lapse: Callable[[uuid.UUID | None, uuid.UUID | None], Awaitable[None]] = _nothing):
        self.name, self.address, self.lease_s, self.renew_s, self.on_lapse = name, address, lease_s, renew_s, on_lapse
        self.margin_s = min(0.25, lease_s / 8)  # counted on for less than the lease: clocks drift
        self.id: uuid.UUID | None = None
        self.lapses = 0  # how many times the lease lapsed (each one a new controller id)
        self._held_until = 0.0  # monotonic
        self._lock = asyncio.Lock()  # one renewal or rejoin at a time
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="controller-lease")
        self._task: asyncio.Task | None = None

    async def start(self) -> uuid.UUID:
        await self._join()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="controller-lease")
        return self.id

    def holds(self) -> bool:
        """Whether this controller may count on its lease now, without asking the database."""
        return self.id is not None and time.monotonic() < self._held_until

    async def confirm(self) -> bool:
        """Whether the lease holds, renewing it first unless `holds()` (after a lapse, as the new controller
        this one has become: `on_lapse` has run by then); False when the database cannot say."""
        if self.holds():
            return True
        async with self._lock:
            if not self.holds():
                await self._renew()
            return self.holds()

    async def renew(self) -> bool:
        """One renewal; False when the lease had lapsed (then rejoined) or the database did not answer."""
        async with self._lock:
            return await self._renew()

    async def _renew(self) -> bool:
        asked_at = time.monotonic()
        try:
            renewed = await self._in_thread(leases.renew_controller, self.id, self.lease_s)
        except Exception as exc:  # the database restarting: the lease runs on meanwhile, and may lapse
            log.warning("controller %s: renewing its lease failed (%s)", self.name, exc)
            return False
        if renewed:
            self._held_until = asked_at + self.lease_s - self.margin_s
            return True
        await self._lapsed()
        return False

    async def _lapsed(self) -> None:
        """Called holding the lock. holds() stays False until `on_lapse` has run: whoever wants to send meanwhile
        waits for the lock in confirm(), and then finds the streams switched to the new lease (or ended)."""
        old = self.id
        self.lapses += 1
        self._held_until = held_until = 0.0
        try:
            await self._join()
            held_until, self._held_until = self._held_until, 0.0
        except Exception as exc:
            self.id = None  # holds() stays False; the next renewal tries to join again
            log.error("controller %s: its lease %s lapsed and joining again failed (%s)", self.name, old, exc)
        else:
            log.error("controller %s: its lease lapsed (not renewed within %.1f s); it is controller %s from now "
                      "on", self.name, self.lease_s, self.id)
        try:
            await self.on_lapse(old, self.id)
        except Exception:
            log.exception("controller %s: taking its nodes over after the lapse failed", self.name)
        self._held_until = held_until

    async def _join(self) -> None:
        asked_at = time.monotonic()
        self.id = await self._in_thread(leases.start_controller, self.name, self.address, self.lease_s)
        self._held_until = asked_at + self.lease_s - self.margin_s

    async def _in_thread(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._thread, in_session, fn, *args)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.renew_s)
            if self.id is None:
                async with self._lock:
                    try:
                        await self._join()
                    except Exception as exc:
                        log.warning("controller %s: joining failed (%s)", self.name, exc)
                continue
            await self.renew()

    async def stop(self) -> None:
        """An orderly stop: the row goes (its nodes' leases name no controller)."""
        await cancel_and_wait(self._task)
        self._task = None
        if self.id is not None:
            try:
                await self._in_thread(leases.end_controller, self.id)
            except Exception:
                log.warning("controller %s: removing its row failed", self.name, exc_info=True)
        self._thread.shutdown(wait=False)
