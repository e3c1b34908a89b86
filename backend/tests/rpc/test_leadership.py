"""Leadership (controller.leadership): of several controllers on one database exactly one leads, through a Postgres
advisory lock; when its session ends (it stops, dies, or its connection is cut) another takes the lead within a
few tries; only the leader sweeps."""

import asyncio

from sqlalchemy import text

from e3.controller.command_streams import CommandStreams
from e3.controller.leadership import LEADER_LOCK_KEY, Leadership

KEY = LEADER_LOCK_KEY + 1000  # these controllers' own lock: a controller of another test may lead meanwhile
from e3.core.db import session_scope
from e3.services import commands


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
        await a.stop()  # an orderly stop gives the lock up at once
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
