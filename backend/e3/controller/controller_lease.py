"""This controller's row in `controllers` and its lease (services.leases; docs/controller-scale-out.md §4), renewed
every `renew_s` for `lease_s` ahead on Postgres's clock.

A renewal that finds the lease already expired (the database unreachable longer than the lease, or the process
paused) does not extend it: the lease has lapsed, and the controller says so in its log. What a lapsed controller
must stop doing (its commands fenced, its nodes taken by another) comes with the leader's watch of the
controllers (§5); with one controller nothing else reads the lease yet.
"""

import asyncio
import logging
import uuid

from e3.core.aio import cancel_and_wait
from e3.core.db import in_session
from e3.services import leases

log = logging.getLogger(__name__)


class ControllerLease:
    def __init__(self, name: str, address: str, lease_s: float = 2.0, renew_s: float = 0.5):
        self.name, self.address, self.lease_s, self.renew_s = name, address, lease_s, renew_s
        self.id: uuid.UUID | None = None
        self.lapsed = False
        self._task: asyncio.Task | None = None

    async def start(self) -> uuid.UUID:
        self.id = await asyncio.to_thread(in_session, leases.start_controller, self.name, self.address, self.lease_s)
        self._task = asyncio.get_running_loop().create_task(self._run(), name="controller-lease")
        return self.id

    async def renew(self) -> bool:
        """One renewal; False (and `lapsed`) when the lease had expired."""
        try:
            renewed = await asyncio.to_thread(in_session, leases.renew_controller, self.id, self.lease_s)
        except Exception as exc:  # the database restarting: the lease runs on meanwhile, and may lapse
            log.warning("controller %s: renewing its lease failed (%s)", self.name, exc)
            return not self.lapsed
        if not renewed and not self.lapsed:
            log.error("controller %s: its lease lapsed (not renewed within %.1f s)", self.name, self.lease_s)
        self.lapsed = not renewed
        return renewed

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.renew_s)
            await self.renew()

    async def stop(self) -> None:
        """An orderly stop: the row goes (its nodes' leases name no controller)."""
        await cancel_and_wait(self._task)
        self._task = None
        if self.id is not None:
            try:
                await asyncio.to_thread(in_session, leases.end_controller, self.id)
            except Exception:
                log.warning("controller %s: removing its row failed", self.name, exc_info=True)
