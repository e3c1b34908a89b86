"""Ends the open streams of an agent credential once it is revoked or expires.

A new call is checked when it starts (services.agent_credentials.authorize); a stream opened before the
credential was revoked would run on for as long as its agent keeps it. So each open stream is held here
under its credential, every `check_s` the credentials in use are looked up, and the streams of those no
longer valid are cancelled: their handlers see CancelledError, ask `was_revoked`, and end the call
UNAUTHENTICATED. The ingest front's heartbeat streams are not tasks here: they are counted under their credential
(`front_opened`, `front_closed`), and a revoked one is handed to `on_front_revoked` (the front ends them).
Used from the controller's asyncio loop; the lookup runs in a worker thread.
"""

import asyncio
import contextlib
import logging
import uuid
import weakref
from collections import Counter
from collections.abc import Callable

from e3.core.aio import cancel_and_wait
from e3.core.db import in_session
from e3.services import tokens

log = logging.getLogger(__name__)


class CredentialWatch:
    def __init__(self, check_s: float = 1.0, on_front_revoked: Callable[[uuid.UUID, str], None] = lambda t, m: None):
        self.check_s = check_s
        self.open: dict[uuid.UUID, set[asyncio.Task]] = {}  # credential -> the tasks serving its streams
        self.front_open: Counter[uuid.UUID] = Counter()  # credential -> the front's heartbeat streams under it
        self.on_front_revoked = on_front_revoked
        self._revoked: weakref.WeakSet[asyncio.Task] = weakref.WeakSet()  # cancelled by us, not by the client
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._watch(), name="credential-watch")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)

    @contextlib.contextmanager
    def stream(self, token_id: uuid.UUID):
        """Within this block the current task (a stream's handler) is cancelled if `token_id` is revoked."""
        task = asyncio.current_task()
        self.open.setdefault(token_id, set()).add(task)
        try:
            yield
        finally:
            tasks = self.open.get(token_id, set())
            tasks.discard(task)
            if not tasks:
                self.open.pop(token_id, None)

    def front_opened(self, token_id: uuid.UUID) -> None:
        self.front_open[token_id] += 1

    def front_closed(self, token_id: uuid.UUID) -> None:
        self.front_open[token_id] -= 1
        if self.front_open[token_id] <= 0:
            del self.front_open[token_id]

    def was_revoked(self) -> bool:
        """True (once) if the current task was cancelled because its credential was revoked; it is then
        no longer cancelling, so its handler can end the call with a status of its own."""
        task = asyncio.current_task()
        if task not in self._revoked:
            return False
        self._revoked.discard(task)
        task.uncancel()
        return True

    async def end_invalid(self) -> int:
        """Cancel the streams of every credential in use that is no longer valid; returns how many."""
        in_use = list(self.open.keys() | self.front_open.keys())
        if not in_use:
            return 0
        valid = await asyncio.to_thread(in_session, tokens.still_valid, in_use)
        ended = 0
        for token_id in in_use:
            if token_id in valid:
                continue
            if (streams := self.front_open.pop(token_id, 0)) > 0:
                self.on_front_revoked(token_id, tokens.INVALID_TOKEN)
                ended += streams
            for task in self.open.pop(token_id, set()):
                self._revoked.add(task)
                task.cancel()
                ended += 1
        if ended:
            log.warning("ended %d stream(s) of revoked or expired agent credentials", ended)
        return ended

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.check_s)
            try:
                await self.end_invalid()
            except Exception:
                log.exception("checking the agent credentials in use failed")
