"""Small asyncio helpers shared by the controller's long-running tasks."""

import asyncio


RECANCEL_S = 1.0  # a task still running this long after its cancel is cancelled again


async def cancel_and_wait(*tasks: asyncio.Task | None) -> None:
    """Cancel the tasks (None is skipped) and wait until each has finished. A task that lost its cancel and goes
    on is cancelled again every RECANCEL_S. Seen in CI: a controller's stop waited forever on its membership
    loop, sleeping again after the cancel (where the cancel was swallowed is not found; Python 3.11's wait_for
    and timeout helpers, as in a Redis call, are known to lose one that lands as the inner call completes)."""
    live = [t for t in tasks if t is not None]
    for task in live:
        task.cancel()
    for task in live:
        while not task.done():
            await asyncio.wait({task}, timeout=RECANCEL_S)
            if not task.done():
                task.cancel()
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # as awaiting it would


async def every(interval_s: float, step, log, what: str) -> None:
    """Run `await step()` every `interval_s` until cancelled; a failing step is logged (`what` failed) and the
    next one runs on time: a periodic chore never stops the process."""
    while True:
        await asyncio.sleep(interval_s)
        try:
            await step()
        except Exception:
            log.exception("%s failed", what)
