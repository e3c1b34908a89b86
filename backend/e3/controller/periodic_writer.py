"""The loop the controller's database writers share (rollup_writer, energy_rollups): every `every_s`, the
retention pass when it is due (on the leader only, at once and then every `retention_every_s`), then the
writer's tick. A failing tick is logged and tried again next time: a writer never stops the controller."""

import logging
import time
from collections.abc import Awaitable, Callable

from e3.core.aio import every

log = logging.getLogger(__name__)


class RetentionSchedule:
    """When a writer's retention pass is due: only while `leads()` (controller.leadership), first at once,
    then every `every_s` after the last pass began (a failed pass waits its turn too)."""

    def __init__(self, every_s: float, leads: Callable[[], bool]):
        self.every_s, self.leads = every_s, leads
        self._ran_at: float | None = None  # monotonic time of the last pass

    def due(self) -> bool:
        return self.leads() and (self._ran_at is None or time.monotonic() - self._ran_at >= self.every_s)

    def ran(self) -> None:
        self._ran_at = time.monotonic()


async def write_periodically(every_s: float, tick: Callable[[], Awaitable[object]], retention: RetentionSchedule,
                             apply_retention: Callable[[], Awaitable[object]], what: str) -> None:
    """Run forever (until cancelled): `apply_retention` when due, then `tick`; `what` names the writer in logs."""

    async def step() -> None:
        if retention.due():
            await apply_retention()
        await tick()

    await every(every_s, step, log, what)
