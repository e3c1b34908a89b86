"""The energy history's writer looks up what labels its rows (idle watts, instances' applications) once: a node or
instance the database does not have is not looked up again at every tick, only after UNKNOWN_RECHECK_S."""

import asyncio

from e3.controller import energy_rollups
from e3.controller.energy_rollups import UNKNOWN_RECHECK_S, EnergyRollups
from e3.energy.ledger import EnergyLedger
from e3.services.energy_labels import InstanceLabels

LABELS = InstanceLabels("dep", "app", "api", 1.0, True)


def test_unknown_ids_are_looked_up_again_only_after_the_recheck_interval(monkeypatch):
    asked = []

    def look_up(session, nodes, instances):  # the database: node n1 and instance i1 exist, n2 and i2 do not
        asked.append((sorted(nodes), sorted(instances)))
        return ({n: 40.0 for n in nodes if n == "n1"}, {i: LABELS for i in instances if i == "i1"})

    monkeypatch.setattr(energy_rollups, "in_session", lambda fn, *args: fn(None, *args))
    monkeypatch.setattr(energy_rollups, "_look_up", look_up)
    now = [1000.0]
    writer = EnergyRollups(EnergyLedger(), clock=lambda: now[0])
    learn = lambda: asyncio.run(writer._learn({"n1", "n2"}, {"i1", "i2"}))  # noqa: E731

    learn()
    assert asked == [(["n1", "n2"], ["i1", "i2"])]
    now[0] += UNKNOWN_RECHECK_S / 2
    learn()  # every id answered already, found or not
    assert len(asked) == 1
    now[0] += UNKNOWN_RECHECK_S
    learn()  # the ones not found are asked again; the found ones never
    assert asked[1:] == [(["n2"], ["i2"])]
    assert writer._idle == {"n1": 40.0} and writer.counts_requests("i1") is True and writer.counts_requests("i2") is None


def test_steps_closed_a_few_nodes_at_a_time_give_the_rows_one_close_gives(monkeypatch):
    monkeypatch.setattr(energy_rollups, "in_session", lambda fn, *args: fn(None, *args))
    monkeypatch.setattr(energy_rollups, "_look_up", lambda session, nodes, instances: ({n: 10.0 for n in nodes}, {}))

    def held(close_nodes: int) -> list:
        monkeypatch.setattr(energy_rollups, "CLOSE_NODES", close_nodes)
        ledger = EnergyLedger(step_s=1)
        for k in range(5):
            node = ledger.account(f"n{k}", "c", "host", f"s{k}")
            for t in (1000.0, 1000.5, 1001.2):  # a step ended, one not
                node.add(t, 100.0 + k, "model", 0.5, [(f"i{k}", 3, 0.2)])
        writer = EnergyRollups(ledger, clock=lambda: 1003.5)

        async def no_write():
            return 0

        writer._write = no_write
        asyncio.run(writer._tick(1001.0))
        return [stored.row for batch in writer._pending for stored in batch]

    whole, by_two = held(500), held(2)
    assert by_two == whole and len(whole) == 10  # each node's ended step and its instance's, in the ledger's order
    assert [r.node_id for r in whole if r.instance_id is None] == ["n0", "n1", "n2", "n3", "n4"]
