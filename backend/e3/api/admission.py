"""Admission control: the API serves a bounded number of requests at once and refuses the rest at once.

Why it cannot deadlock (docs/architecture.md, "The API and its database"): a request holds its database
connection across several thread-pool hops (dependencies, route, commit). If more requests took threads
than there are connections, threads could all wait for a connection while the requests holding the
connections wait for a thread to commit. So at most `api_db_connections` requests are admitted at once, the
same number as the request pool's connections (core/db.py, no overflow): an admitted request always finds a
connection, and the thread limiter has that many tokens plus SPARE_THREADS for what runs outside admission.
Up to `api_queue` more requests wait at most `api_queue_wait_s` for a turn; any beyond are answered 503 with
Retry-After at once, and so is one whose wait ran out: never a hang.

Long-lived streams (server-sent events, WebSockets) are not admitted here: they hold no request session
(they check their token in a short session of their own), so they cannot take a turn forever.
"""

import asyncio
import json
from dataclasses import dataclass, field

import anyio.to_thread

from e3.core.config import get_settings

RETRY_AFTER_S = 1
# Threads for sync work that is not admitted: /healthz and /readyz, static files of the UI, docs.
SPARE_THREADS = 8
ADMITTED_PREFIX = "/api/v1/"


def thread_limit() -> int:
    """The thread pool's size: one thread per admitted request (= per request connection) plus the spare."""
    return get_settings().api_db_connections + SPARE_THREADS


def size_thread_pool() -> None:
    """Set the running event loop's AnyIO thread limiter (sync routes and dependencies run there) from the
    pool size. Called at start-up (the limiter belongs to the loop)."""
    anyio.to_thread.current_default_thread_limiter().total_tokens = thread_limit()


def is_long_lived(path: str) -> bool:
    return path.endswith("/stream")


@dataclass
class _Turns:
    """The admission state of one event loop."""

    loop: asyncio.AbstractEventLoop
    running: asyncio.Semaphore
    capacity: int  # admitted plus queued
    wait_s: float
    in_flight: int = field(default=0)


def _refusal(message: str) -> tuple[dict, bytes]:
    body = json.dumps({"code": "overloaded", "message": message, "errors": []}).encode()
    return {"type": "http.response.start", "status": 503,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                        (b"retry-after", str(RETRY_AFTER_S).encode())]}, body


class Admission:
    """ASGI middleware admitting /api/v1 requests (not streams) as the module docstring says."""

    def __init__(self, app):
        self.app = app
        self._turns: _Turns | None = None

    def _state(self) -> _Turns:
        loop = asyncio.get_running_loop()
        if self._turns is None or self._turns.loop is not loop:  # a test client may start a new loop
            settings = get_settings()
            self._turns = _Turns(loop, asyncio.Semaphore(settings.api_db_connections),
                                 settings.api_db_connections + settings.api_queue, settings.api_queue_wait_s)
        return self._turns

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].startswith(ADMITTED_PREFIX) or is_long_lived(scope["path"]):
            return await self.app(scope, receive, send)
        turns = self._state()
        if turns.in_flight >= turns.capacity:
            return await self._refuse(send, f"the API is serving {turns.in_flight} requests, its limit; retry "
                                            f"in {RETRY_AFTER_S} s")
        turns.in_flight += 1
        try:
            if turns.running.locked():
                try:
                    await asyncio.wait_for(turns.running.acquire(), turns.wait_s)
                except TimeoutError:
                    return await self._refuse(send, f"no turn came free within {turns.wait_s:g} s; retry in "
                                                    f"{RETRY_AFTER_S} s")
            else:
                await turns.running.acquire()
            try:
                await self.app(scope, receive, send)
            finally:
                turns.running.release()
        finally:
            turns.in_flight -= 1

    @staticmethod
    async def _refuse(send, message: str) -> None:
        start, body = _refusal(message)
        await send(start)
        await send({"type": "http.response.body", "body": body})
