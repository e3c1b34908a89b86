"""Open streams end when their token stops authenticating: revoked, expired, or gone.

A stream (the event log's and the live channel's server-sent events, the live WebSocket) is authorised once,
when it opens; without this it would run for as long as its client stays. Each open stream of this process
waits on one `RevocationWatch`, which asks the database every `CHECK_INTERVAL_S` which of the streams' tokens
no longer authenticate (one short indexed query for all the streams of the process, however many) and wakes
the streams of each. A revocation made through any API process, the CLI or SQL is seen alike. While the
database cannot be asked, open streams go on (their tokens were valid) and are checked again next time.
"""

import asyncio
import logging
from collections.abc import AsyncIterator, Callable

from e3.core.db import in_session
from e3.core.security import Actor
from e3.services import tokens

log = logging.getLogger(__name__)
CHECK_INTERVAL_S = 0.5  # a stream ends at most this long, plus one query, after its token stops authenticating
REVOKED_MESSAGE = "token revoked or expired"


class RevocationWatch:
    """Wakes waiters of a token id once `inactive_among(ids)` (blocking) names it; polls only while waited on."""

    def __init__(self, inactive_among: Callable[[list], set], interval_s: float):
        self._inactive_among, self._interval_s = inactive_among, interval_s
        self._waiters: dict[object, set[asyncio.Future]] = {}
        self._poller: asyncio.Task | None = None

    async def until_inactive(self, token_id) -> None:
        """Return once `token_id` no longer authenticates."""
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self._waiters.setdefault(token_id, set()).add(waiter)
        # A poller left on another event loop (a test client's, now gone) would never run again.
        if self._poller is None or self._poller.done() or self._poller.get_loop() is not loop:
            self._poller = loop.create_task(self._poll())
        try:
            await waiter
        finally:
            waiters = self._waiters.get(token_id, set())
            waiters.discard(waiter)
            if not waiters:
                self._waiters.pop(token_id, None)

    async def _poll(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiters:
            await asyncio.sleep(self._interval_s)
            watched = list(self._waiters)
            if not watched:
                return
            try:
                inactive = await asyncio.to_thread(self._inactive_among, watched)
            except Exception:  # the database away for a moment: checked again at the next interval
                log.warning("could not check the tokens of open streams", exc_info=True)
                continue
            for token_id in inactive:
                for waiter in self._waiters.get(token_id, ()):
                    if not waiter.done() and waiter.get_loop() is loop:
                        waiter.set_result(None)


watch = RevocationWatch(lambda ids: in_session(tokens.inactive_among, ids), CHECK_INTERVAL_S)


async def until_revoked(actor: Actor) -> None:
    """Return once the token `actor` authenticated with no longer does."""
    await watch.until_inactive(actor.token_id)


async def ended_on_revocation(chunks: AsyncIterator[bytes], actor: Actor,
                              farewell: bytes = b"") -> AsyncIterator[bytes]:
    """The chunks of a streamed response until `actor`'s token no longer authenticates; then `farewell` and the
    end of the response."""
    revoked = asyncio.ensure_future(until_revoked(actor))
    pending: asyncio.Future | None = None
    try:
        while True:
            pending = asyncio.ensure_future(anext(chunks))
            await asyncio.wait((pending, revoked), return_when=asyncio.FIRST_COMPLETED)
            if not pending.done():
                if farewell:
                    yield farewell
                return
            try:
                chunk = pending.result()
            except StopAsyncIteration:
                return
            pending = None
            yield chunk
    finally:
        revoked.cancel()
        if pending is not None:  # cancelling the read closes `chunks` (its own cleanup runs in that task)
            pending.cancel()
        else:
            await chunks.aclose()
