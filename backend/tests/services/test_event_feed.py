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



def test_an_event_committed_after_a_later_one_was_read_is_still_delivered(backing_services):
    """Ids are taken when an event is added, not at commit: the one of a transaction still open when a later
    one was read (a migration step's answer, written by the controller while the worker wrote the next step)
    must reach the follower when it commits, not be skipped by its cursor."""
    from sqlalchemy.orm import Session

    from e3.core.db import get_engine

    async def run():
        feed = event_feed.follow(backing_services["database_url"], 0, poll_s=3600, keepalive_s=3600)
        with session_scope() as session:
            events.emit(session, "before", "test/gap")
        got = list(await asyncio.wait_for(anext(feed), 30))
        slow = Session(get_engine())
        events.emit(slow, "slow", "test/gap")
        slow.flush()  # its id is taken now; its transaction stays open
        with session_scope() as session:
            events.emit(session, "fast", "test/gap")  # a higher id, committed first
        got += await asyncio.wait_for(anext(feed), 30)
        assert [e["kind"] for e in got] == ["before", "fast"]
        follower = asyncio.ensure_future(anext(feed))
        await asyncio.sleep(0.2)
        await asyncio.to_thread(lambda: (slow.commit(), slow.close()))
        got += await asyncio.wait_for(follower, 30)
        await feed.aclose()
        return got

    got = asyncio.run(run())
    assert [e["kind"] for e in got] == ["before", "fast", "slow"]
    assert got[2]["id"] < got[1]["id"]  # the gap it filled
