"""Small asyncio helpers shared by the controller's long-running tasks."""

import asyncio


async def cancel_and_wait(*tasks: asyncio.Task | None) -> None:
    """Cancel the tasks (None is skipped) and wait until each has finished."""
    live = [t for t in tasks if t is not None]
    for task in live:
        task.cancel()
    for task in live:
        try:
            await task
        except asyncio.CancelledError:
            pass
