"""Following the event log live: new events as they are committed, from a cursor on.

Writers NOTIFY `e3_events` in the transaction that adds events (services.events.emit); a follower
LISTENs on its own connection and reads on from its cursor when woken, and at least every `poll_s`
(a notification is lost while the LISTEN connection is being re-established). Nothing is pushed
before it is stored, and a follower that resumes from its last id misses nothing.

Ids are handed out when an event is added, not when its transaction commits: a transaction that took id
41 can commit after another one's 42 was read. So a follower does not take the ids it has not seen below
its cursor as gone: an id missing below one it read is a *gap*, looked for again at each read for
GAP_WAIT_S (a transaction still open commits within that, and its NOTIFY wakes the follower; a rolled-back
one left a hole that never fills). Gaps are tracked among the newest GAP_SPAN ids only, and an event that
fills one is pushed then, after events with higher ids (consumers order by id). Seen once: a migration's
step event, written by the worker, read before the agent's answer written just before it by the
controller, and that answer then never shown in the live timeline.
"""

import asyncio
import time
from collections.abc import AsyncIterator

import psycopg

from e3.core.db import in_session, libpq_url
from e3.services import events

BATCH = 500  # events per read
GAP_WAIT_S = 10.0  # a missing id is looked for this long (a transaction open longer is cut by the API's timeouts)
GAP_SPAN = 1000  # gaps are tracked among this many ids below the highest read


async def follow(database_url: str, since: int, *, kind: str | None = None, cluster: str | None = None,
                 subject: str | None = None, application: str | None = None, deployment=None, keepalive_s: float = 15.0,
                 poll_s: float = 5.0) -> AsyncIterator[list[dict]]:
    """Yield lists of new events (by id, except one that fills a gap: see the module) after `since`, forever;
    an empty list when nothing came for `keepalive_s` (so a stream can send a keep-alive)."""
    filters = dict(kind=kind, cluster=cluster, subject=subject, application=application, deployment=deployment)
    async with await psycopg.AsyncConnection.connect(libpq_url(database_url), autocommit=True) as conn:
        await conn.execute(f"LISTEN {events.NOTIFY_CHANNEL}")
        gaps = _Gaps()
        await gaps.seed(since)
        cursor, quiet = since, 0.0
        while True:
            ids = await asyncio.to_thread(in_session, events.ids_after, cursor, gaps.waiting(), BATCH)
            items = []
            if ids:
                gaps.saw(cursor, ids)
                cursor = max(cursor, ids[-1])
                items = await asyncio.to_thread(in_session, events.list_events, ids=ids, limit=len(ids), **filters)
            if items:
                quiet = 0.0
                yield items
            if len(ids) == BATCH:
                continue
            wait = min(poll_s, keepalive_s - quiet)
            woken = False
            async for _ in conn.notifies(timeout=wait, stop_after=1):
                woken = True
            if not woken:
                quiet += wait
                if quiet >= keepalive_s:
                    quiet = 0.0
                    yield []


class _Gaps:
    """Ids missing below the highest one read, each waited for until GAP_WAIT_S after it was first missed."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.until: dict[int, float] = {}

    async def seed(self, since: int) -> None:
        """The ids missing just below a resumed stream's cursor (a transaction may still be open there)."""
        if since > 0:
            low = max(0, since - GAP_SPAN)
            present = await asyncio.to_thread(in_session, events.ids_after, low, (), GAP_SPAN)
            self._missing(low, [i for i in present if i <= since] + [since + 1])

    def waiting(self) -> list[int]:
        now = self.clock()
        self.until = {i: t for i, t in self.until.items() if t > now}
        return sorted(self.until)

    def saw(self, cursor: int, ids: list[int]) -> None:
        for i in ids:
            self.until.pop(i, None)
        self._missing(cursor, [i for i in ids if i > cursor])

    def _missing(self, after: int, present: list[int]) -> None:
        """Ids above `after` and below the highest of `present` (ascending) not among them: gaps."""
        if not present:
            return
        top, have = present[-1], set(present)
        deadline = self.clock() + GAP_WAIT_S
        for i in range(max(after + 1, top - GAP_SPAN), top):
            if i not in have:
                self.until.setdefault(i, deadline)
