"""cancel_and_wait: a task that swallows its cancel (as Python 3.11's wait_for can, when the inner call completes
as the cancel lands) is cancelled again until it ends, instead of the caller waiting forever; a task's own
failure still reaches the caller."""

import asyncio
import time

import pytest

from e3.core.aio import RECANCEL_S, cancel_and_wait


async def _swallows_one_cancel(swallowed: list) -> None:
    while True:
        try:
            await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            if swallowed:
                raise
            swallowed.append(True)  # lost, as in the race: the loop goes on


def test_a_task_that_swallowed_its_cancel_is_cancelled_again_and_the_caller_returns():
    async def run():
        swallowed = []
        task = asyncio.create_task(_swallows_one_cancel(swallowed))
        await asyncio.sleep(0.05)
        started = time.monotonic()
        await asyncio.wait_for(cancel_and_wait(task, None), timeout=10 * RECANCEL_S)
        return swallowed, task, time.monotonic() - started

    swallowed, task, took = asyncio.run(run())
    assert swallowed == [True] and task.cancelled()
    assert took < 3 * RECANCEL_S


def test_a_task_that_failed_on_its_way_out_raises_to_the_caller():
    async def fails_when_cancelled():
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            raise RuntimeError("cleanup failed") from None

    async def run():
        task = asyncio.create_task(fails_when_cancelled())
        await asyncio.sleep(0.01)
        await cancel_and_wait(task)

    with pytest.raises(RuntimeError, match="cleanup failed"):
        asyncio.run(run())
