"""Registrations in batches: many agents' nodes written in one transaction (services.agents.mark_registered), and
the controller's batcher (controller.registrations) putting every Register that waits while a transaction runs
into the next one."""

import asyncio
import threading

from sqlalchemy import func, select

from e3.controller import registrations as registrations_module
from e3.controller.registrations import Registrations
from e3.core.db import session_scope
from e3.core.security import SYSTEM
from e3.models import ComputeNode, Event
from e3.services import agents, leases
from e3.services.agent_credentials import AgentCredential
from e3.services.tokens import create_token


def test_many_nodes_are_registered_in_one_transaction_each_with_its_events_and_epoch(client):
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 3, "server_type": "beefy",
                                              "name": "batch"})
    assert r.status_code == 201
    with session_scope() as session:
        me = leases.start_controller(session, "me", "127.0.0.1:1", 30.0)
        names = session.scalars(select(ComputeNode.name).order_by(ComputeNode.name)).all()
        found = [agents.find_node(session, "batch", name, None, None) for name in names]
        token = create_token(session, "agent", ["agent"], SYSTEM)[0]
    credential = AgentCredential(token_id=token.id, name="agent", cluster_id=None, servers=None)
    batch = [agents.Registration(node, f"agent-{i}", credential, "test", "10.0.0.1", None, me)
             for i, node in enumerate(found)]
    with session_scope() as session:
        epochs = agents.mark_registered(session, batch)
    assert epochs == [1] * len(found)
    with session_scope() as session:
        states = session.scalars(select(ComputeNode.state)).all()
        registered = session.scalar(select(func.count()).select_from(Event).where(Event.kind == "node.registered"))
    assert set(states) == {"up"} and registered == len(found)


def test_registrations_waiting_while_a_transaction_runs_go_together_into_the_next(monkeypatch):
    written: list[int] = []
    release = threading.Event()

    def mark_registered(session, batch):  # the database: the first transaction is slow
        written.append(len(batch))
        if len(written) == 1:
            release.wait(5)
        return [7] * len(batch)

    monkeypatch.setattr(registrations_module, "in_session", lambda fn, *args: fn(None, *args))
    monkeypatch.setattr(registrations_module.agents, "mark_registered", mark_registered)

    async def scenario():
        batcher = Registrations(max_batch=4)
        batcher.start()
        first = asyncio.create_task(batcher.mark("r0"))
        await asyncio.sleep(0.05)  # the first transaction runs
        rest = [asyncio.create_task(batcher.mark(f"r{i}")) for i in range(1, 10)]
        await asyncio.sleep(0.05)
        release.set()
        epochs = await asyncio.gather(first, *rest)
        await batcher.stop()
        return epochs, batcher.batches

    epochs, batches = asyncio.run(scenario())
    assert epochs == [7] * 10
    assert written == [1, 4, 4, 1] and batches == 4  # at most max_batch at a time


def test_a_failed_transaction_fails_each_registration_in_it(monkeypatch):
    def mark_registered(session, batch):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(registrations_module, "in_session", lambda fn, *args: fn(None, *args))
    monkeypatch.setattr(registrations_module.agents, "mark_registered", mark_registered)

    async def scenario():
        batcher = Registrations()
        batcher.start()
        outcomes = await asyncio.gather(*(batcher.mark(f"r{i}") for i in range(3)), return_exceptions=True)
        await batcher.stop()
        return outcomes

    outcomes = asyncio.run(scenario())
    assert [str(o) for o in outcomes] == ["the database went away"] * 3


def test_a_batch_chosen_as_a_deadlock_victim_is_written_again(monkeypatch):
    from sqlalchemy.exc import DBAPIError

    class Deadlock(Exception):
        sqlstate = "40P01"

    tries: list[int] = []

    def mark_registered(session, batch):
        tries.append(len(batch))
        if len(tries) == 1:
            raise DBAPIError("UPDATE compute_nodes ...", {}, Deadlock("deadlock detected"))
        return [3] * len(batch)

    monkeypatch.setattr(registrations_module, "in_session", lambda fn, *args: fn(None, *args))
    monkeypatch.setattr(registrations_module.agents, "mark_registered", mark_registered)

    async def scenario():
        batcher = Registrations()
        batcher.start()
        epochs = await asyncio.gather(*(batcher.mark(f"r{i}") for i in range(2)))
        await batcher.stop()
        return epochs

    assert asyncio.run(scenario()) == [3, 3] and len(tries) >= 2
