"""The controller's energy account (e3.energy.ledger): a heartbeat's energy, steps, conservation."""

import math
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from e3.energy.ledger import MAX_INTERVAL_S, EnergyLedger


def Stats(instance_id: str, requests: int, cpu_share: float) -> tuple:  # what the intake hands over
    return instance_id, requests, cpu_share


def close_all(ledger, idle=0.0, reserved=None):
    return ledger.close(math.inf, lambda node: idle, lambda iid: (reserved or {}).get(iid))


def node_rows(rows):
    return [r for r in rows if r.instance_id is None]


def test_a_heartbeat_is_charged_its_watts_over_the_interval_since_the_previous_one():
    ledger = EnergyLedger(step_s=10)
    node = ledger.account("n1", "c1", "host", "s0/host")
    assert node.add(1000.00, 100.0, "model", 0.5, []) == 0.0  # the first: no interval known
    assert node.add(1000.05, 120.0, "model", 0.5, []) == pytest.approx(6.0)  # 120 W x 50 ms
    assert node.add(1000.05, 500.0, "model", 0.5, []) == 0.0  # not newer than the latest: no interval
    assert node.add(1009.00, 80.0, "model", 0.5, []) == pytest.approx(80.0 * MAX_INTERVAL_S)  # a silence: capped
    (row,) = close_all(ledger)
    assert row.joules == pytest.approx(86.0)
    assert (row.heartbeats, row.watts_max, row.seconds) == (4, 500.0, pytest.approx(1.05))
    assert node.joules_by_source == {"model": pytest.approx(86.0)} and node.heartbeats == 4


def test_a_heartbeat_counts_in_the_step_holding_its_timestamp_and_steps_close_when_they_end():
    ledger = EnergyLedger(step_s=10)
    node = ledger.account("n1", "c1", "host", "h")
    for t in (1009.9, 1010.0, 1010.1):
        node.add(t, 100.0, "rapl", 0.0, [])
    assert ledger.close(1019.9, lambda n: 0.0, lambda i: None) != []  # the step [1000, 1010) ended
    assert ledger.closable(1019.9) == (set(), set())
    rows = close_all(ledger)
    assert [(r.start, r.heartbeats) for r in rows] == [(1010.0, 2)]
    assert rows[0].joules == pytest.approx(100.0 * 0.2)


def test_instances_share_the_step_by_cpu_time_and_reserved_cores_and_nothing_is_lost():
    ledger = EnergyLedger(step_s=10)
    node = ledger.account("n1", "c1", "host", "h")
    node.add(1000.0, 150.0, "model", 0.5, [Stats("a", 5, 0.3), Stats("b", 1, 0.1)])
    for k in range(1, 11):  # 1 s at 150 W: 100 W idle, 50 W dynamic
        node.add(1000.0 + k * 0.1, 150.0, "model", 0.4, [Stats("a", 10, 0.3), Stats("b", 2, 0.1)])
    rows = close_all(ledger, idle=100.0, reserved={"a": 1.0, "b": 3.0})
    (n,) = node_rows(rows)
    a, b = (r for r in rows if r.instance_id)
    assert n.joules == pytest.approx(150.0) and n.idle_joules == pytest.approx(100.0)
    assert a.joules == pytest.approx(25.0 + 37.5) and b.joules == pytest.approx(75.0 + 12.5)
    assert n.unattributed_joules == pytest.approx(0.0, abs=1e-9)
    assert (a.requests, b.requests, n.requests) == (105, 21, 126)
    assert ledger.instances["a"].joules_by_source == {"model": pytest.approx(62.5)}
    assert ledger.instances["a"].requests == 105


def test_a_step_where_the_source_changed_is_mixed_and_totals_keep_each_source():
    ledger = EnergyLedger(step_s=10)
    node = ledger.account("n1", "c1", "host", "h")
    node.add(1000.0, 100.0, "model", 0.0, [Stats("a", 0, 0.5)])
    node.add(1000.5, 100.0, "model", 0.0, [Stats("a", 0, 0.5)])  # 50 J model
    node.add(1001.0, 300.0, "ipmi-split", 0.0, [Stats("a", 0, 0.5)])  # 150 J ipmi-split
    rows = close_all(ledger)
    assert {r.source for r in rows} == {"mixed"}
    assert node.joules_by_source == {"model": pytest.approx(50.0), "ipmi-split": pytest.approx(150.0)}
    share = ledger.instances["a"].joules_by_source  # all dynamic (idle 0), all to a: split as the node's
    assert share == {"model": pytest.approx(50.0), "ipmi-split": pytest.approx(150.0)}


def test_an_instance_that_moved_goes_on_counting_on_its_new_node():
    ledger = EnergyLedger(step_s=10)
    one, two = ledger.account("n1", "c", "host", "h1"), ledger.account("n2", "c", "host", "h2")
    one.add(1000.0, 100.0, "model", 0, [Stats("a", 3, 0.5)])
    close_all(ledger)
    two.add(1020.0, 100.0, "model", 0, [Stats("a", 4, 0.5)])
    close_all(ledger)
    assert (ledger.instances["a"].node_id, ledger.instances["a"].requests) == ("n2", 7)


heartbeat = st.tuples(st.floats(0.001, 3.0), st.floats(0.0, 400.0), st.sampled_from(["model", "rapl", "ipmi-split"]),
                      st.floats(0.0, 1.0),
                      st.lists(st.tuples(st.sampled_from("abcd"), st.integers(0, 1000), st.floats(0.0, 1.0)),
                               max_size=4, unique_by=lambda i: i[0]))


@settings(max_examples=150, deadline=None)
@given(st.lists(heartbeat, min_size=1, max_size=60), st.floats(0.0, 200.0),
       st.integers(1, 30))
def test_conservation_rows_equal_the_heartbeats_and_instances_add_up_to_their_node(beats, idle, step_s):
    ledger = EnergyLedger(step_s=step_s)
    node = ledger.account("n1", "c1", "host", "h")
    t, expected_joules, expected_requests, previous = 5000.0, 0.0, 0, None
    for gap, watts, source, cpu, insts in beats:
        t += gap
        shares = [Stats(i, r, s / max(1, len(insts))) for i, r, s in insts]
        node.add(t, watts, source, cpu, shares)
        # the rule, restated: watts x min(interval, cap); the first heartbeat has none
        expected_joules += 0.0 if previous is None else watts * min(t - previous, MAX_INTERVAL_S)
        expected_requests += sum(r for _, r, _ in insts)
        previous = t
    rows = close_all(ledger, idle=idle, reserved={"a": 1.0, "b": 2.0, "c": 0.5, "d": 4.0})
    nodes = node_rows(rows)
    assert math.isclose(sum(r.joules for r in nodes), expected_joules, rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(node.joules, expected_joules, rel_tol=1e-9, abs_tol=1e-9)
    assert sum(r.requests for r in nodes) == expected_requests
    for n in nodes:
        parts = [r for r in rows if r.instance_id and r.start == n.start]
        assert math.isclose(sum(r.joules for r in parts) + n.unattributed_joules, n.joules, rel_tol=1e-9, abs_tol=1e-9)
        assert all(r.joules >= 0 for r in parts) and n.unattributed_joules >= 0
    charged = sum(sum(i.joules_by_source.values()) for i in ledger.instances.values())
    assert charged <= expected_joules * (1 + 1e-9) + 1e-9


def test_a_step_counted_from_the_fronts_rollup_rows_closes_as_the_same_heartbeats_counted_one_by_one():
    """With the ingest front the ledger gets 1 s rollup rows (add_rollup), not heartbeats: the energy history's
    rows must come out as they would from the heartbeats themselves (CPU seconds too, the intervals being equal),
    whatever pieces the rows come in."""
    from e3.rollup.steps import RollupSteps

    direct, rolled = EnergyLedger(step_s=10), EnergyLedger(step_s=10)
    one = direct.account("n1", "c1", "host", "h")
    clock = EnergyLedger(step_s=10).account("n1", "c1", "host", "h")  # the front's energy clock
    steps = RollupSteps()
    node_steps = steps.node("n1", "c1")
    pieces = []
    for k in range(40):  # 2 s at 20 Hz across a 10 s step boundary, the source switching once
        t, source = 1008.5 + k * 0.05, "model" if k < 25 else "rapl"
        used = [("a", 3, 0.3, 0.0, 0, 0.0, 0.0), ("b", 1, 0.1, 0.0, 0, 0.0, 0.0)]
        one.add(t, 100.0 + k, source, 0.5, used)
        joules = clock.add(t, 100.0 + k, source, 0.5, used)
        node_steps.add(t, clock.interval, joules, source, 100.0 + k, 0, 0.5, 0, 0, 0, 0, used)
        if k % 7 == 6:
            pieces.append(steps.take())  # the front's takes: a step's figures in several rows
    pieces.append(steps.take())
    account = rolled.account("n1", "c1", "host", "h")
    for nodes, instances in pieces:
        for row in nodes:
            account.add_rollup(row, [i for i in instances if i.start == row.start])
    expected, got = close_all(direct, idle=50.0), close_all(rolled, idle=50.0)
    key = lambda r: (r.start, r.instance_id or "")  # noqa: E731
    assert [key(r) for r in sorted(got, key=key)] == [key(r) for r in sorted(expected, key=key)]
    for want, have in zip(sorted(expected, key=key), sorted(got, key=key)):
        assert (have.heartbeats, have.requests, have.source) == (want.heartbeats, want.requests, want.source)
        for name in ("joules", "idle_joules", "unattributed_joules", "seconds", "watts_max"):
            assert getattr(have, name) == pytest.approx(getattr(want, name), rel=1e-9, abs=1e-9), name
    # per source, only the row holding the switch differs: it says `mixed`, not how it split
    assert sum(account.joules_by_source.values()) == pytest.approx(one.joules)
    got, want = account.joules_by_source, one.joules_by_source
    assert set(got) == {"model", "rapl", "mixed"} and 0 < got["mixed"] < 0.5 * one.joules
    for source in ("model", "rapl"):
        assert got[source] <= want[source] + 1e-9 <= got[source] + got["mixed"] + 2e-9
