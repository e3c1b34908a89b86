"""Leadership (controller.leadership): of several controllers on one database exactly one leads, through a Postgres
advisory lock; when its session ends (it stops, dies, or its connection is cut) another takes the lead within a
few tries; only the leader sweeps."""

import asyncio

from sqlalchemy import text

from e3.controller.command_streams import CommandStreams
from e3.controller.leadership import LEADER_LOCK_KEY, Leadership

KEY = LEADER_LOCK_KEY + 1000  # these controllers' own lock: a controller of another test may lead meanwhile
from e3.core.db import session_scope
from e3.services import commands, leases


async def _leaders(controllers: list[Leadership], rounds: int = 3) -> list[str]:
    for _ in range(rounds):
        for c in controllers:
            await c.step()
    return [c.name for c in controllers if c.is_leader]


def _lock_holder_pids() -> list[int]:
    with session_scope() as session:
        return list(session.scalars(text(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND (classid::bigint << 32) + objid::bigint = :key"), {"key": KEY}))


def test_one_controller_leads_and_another_takes_over_when_its_session_ends(backing_services):
    url = backing_services["database_url"]
    changes = []

    async def scenario():
        a = Leadership(url, "a", on_change=lambda leading: changes.append(("a", leading)), key=KEY)
        b = Leadership(url, "b", on_change=lambda leading: changes.append(("b", leading)), key=KEY)
        c = Leadership(url, "c", key=KEY)
        assert await _leaders([a, b, c]) == ["a"]  # the first to try
        assert len(_lock_holder_pids()) == 1
        await a.stop()  # an orderly stop gives the lock up at once (when its backend has ended)
        for _ in range(50):
            if not _lock_holder_pids():
                break
            await asyncio.sleep(0.02)
        assert await _leaders([b, c]) == ["b"]
        # the leader's session is cut (a dead controller, a network cut): it notices at its next check, and the
        # lock is free for the others
        with session_scope() as session:
            session.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": _lock_holder_pids()[0]})
        await asyncio.sleep(0.2)
        assert not await b.step() and not b.is_leader
        assert await c.step()
        await b.stop()
        await c.stop()

    asyncio.run(scenario())
    assert changes == [("a", True), ("a", False), ("b", True), ("b", False)]
    assert _lock_holder_pids() == []


def test_a_paused_leaders_lock_is_broken_once_its_lease_has_expired_and_only_then(backing_services):
    url = backing_services["database_url"]
    with session_scope() as session:
        ids = {name: leases.start_controller(session, name, "127.0.0.1:1", 60) for name in ("a", "b", "d")}

    async def scenario():
        a = Leadership(url, "a", key=KEY, controller_id=lambda: ids["a"])
        b = Leadership(url, "b", key=KEY, controller_id=lambda: ids["b"])
        assert await _leaders([a, b]) == ["a"]
        assert not await b.step() and b.broken == 0  # a's lease is live: its lock is left alone
        with session_scope() as session:  # a is paused (it takes no step) past its lease
            session.execute(text("UPDATE controllers SET lease_expires_at = now() - interval '1 second' "
                                 "WHERE id = :id"), {"id": ids["a"]})
        assert not await b.step() and b.broken == 1  # its session ended
        await asyncio.sleep(0.2)
        assert await b.step() and b.is_leader
        assert not await a.step() and not a.is_leader  # resumed: its session is gone, so is its lead
        await a.stop()
        await b.stop()
        c = Leadership(url, "c", key=KEY)  # a session that names no controller of ours
        d = Leadership(url, "d", key=KEY, controller_id=lambda: ids["d"])
        assert await _leaders([c, d]) == ["c"] and d.broken == 0  # never broken
        await c.stop()
        await d.stop()

    try:
        asyncio.run(scenario())
    finally:
        with session_scope() as session:
            for controller_id in ids.values():
                leases.end_controller(session, controller_id)
    assert _lock_holder_pids() == []


def test_only_the_leader_sweeps(backing_services, monkeypatch):
    sweeps = []
    monkeypatch.setattr(commands, "sweep", lambda session: sweeps.append(1) or set())

    async def scenario(leads: bool) -> int:
        sweeps.clear()
        streams = CommandStreams(None, poll_s=0.02, leads=lambda: leads)
        streams.start()
        await asyncio.sleep(0.3)
        await streams.stop()
        return len(sweeps)

    assert asyncio.run(scenario(False)) == 0
    assert asyncio.run(scenario(True)) > 3
