"""Following the event log: a follower whose poll never comes (an hour) is woken by the NOTIFY of each
committed transaction that adds events, and reads on from its cursor."""

import asyncio

from e3.core.db import session_scope
from e3.services import events
from e3.live import event_feed


def test_a_follower_is_woken_by_each_commit_and_not_by_its_poll(backing_services):
    async def run():
        feed = event_feed.follow(backing_services["database_url"], 0, poll_s=3600, keepalive_s=3600)
        got = []

        def commit(*kinds):
            with session_scope() as session:
                for kind in kinds:
                    events.emit(session, kind, "test/feed")

        await asyncio.to_thread(commit, "first")
        got += await asyncio.wait_for(anext(feed), 30)  # the backlog, read at once
        follower = asyncio.ensure_future(anext(feed))
        await asyncio.sleep(0.2)  # it is waiting now: only a NOTIFY can wake it before the hour is up
        await asyncio.to_thread(commit, "second", "third")
        got += await asyncio.wait_for(follower, 30)
        await feed.aclose()
        return [e["kind"] for e in got]

    assert asyncio.run(run()) == ["first", "second", "third"]

