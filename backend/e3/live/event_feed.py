"""Following the event log live: new events as they are committed, from a cursor on.

Writers NOTIFY `e3_events` in the transaction that adds events (services.events.emit); a follower
LISTENs on its own connection and reads on from its cursor when woken, and at least every `poll_s`
(a notification is lost while the LISTEN connection is being re-established). Nothing is pushed
before it is stored, and a follower that resumes from its last id misses nothing.
"""

import asyncio
from collections.abc import AsyncIterator

import psycopg

from e3.core.db import in_session, libpq_url
from e3.services import events

BATCH = 500  # events per read


async def follow(database_url: str, since: int, *, kind: str | None = None, cluster: str | None = None,
                 subject: str | None = None, application: str | None = None, deployment=None, keepalive_s: float = 15.0,
                 poll_s: float = 5.0) -> AsyncIterator[list[dict]]:
    """Yield lists of new events (oldest first) after `since`, forever; an empty list when nothing came for
    `keepalive_s` (so a stream can send a keep-alive)."""
    async with await psycopg.AsyncConnection.connect(libpq_url(database_url), autocommit=True) as conn:
        await conn.execute(f"LISTEN {events.NOTIFY_CHANNEL}")
        cursor, quiet = since, 0.0
        while True:
            items = await asyncio.to_thread(in_session, events.list_events, since=cursor, limit=BATCH, kind=kind,
                                            cluster=cluster, subject=subject, application=application,
                                            deployment=deployment)
            if items:
                cursor, quiet = items[-1]["id"], 0.0
                yield items
                if len(items) == BATCH:
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
