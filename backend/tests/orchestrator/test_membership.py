"""Failure detection: 3 missed periods make a node suspect, more than a second of silence makes it down."""

import pytest

from e3.orchestrator.membership import DOWN, SUSPECT, UP, MembershipPolicy, classify, state_after, transitions

PAPER = MembershipPolicy(period_s=0.050, suspect_after_missed=3, down_after_s=1.0)


def test_states_by_silence():
    assert state_after(0.0, PAPER) == UP
    assert state_after(0.149, PAPER) == UP  # fewer than 3 periods missed
    assert state_after(0.151, PAPER) == SUSPECT
    assert state_after(1.0, PAPER) == SUSPECT  # exactly 1 s is not yet "more than"
    assert state_after(1.001, PAPER) == DOWN


def test_classify_and_transitions_use_one_clock():
    last_seen = {"a": 100.0, "b": 99.8, "c": 98.5}
    assert classify(last_seen, 100.01, PAPER) == {"a": UP, "b": SUSPECT, "c": DOWN}
    known = {"a": UP, "b": UP, "c": SUSPECT}
    assert transitions(last_seen, known, 100.01, PAPER) == {"b": SUSPECT, "c": DOWN}
    # A node heard from again comes back up.
    assert transitions({"c": 100.0}, {"c": DOWN}, 100.01, PAPER) == {"c": UP}


def test_configurable_and_checked():
    slow = MembershipPolicy(period_s=1.0, suspect_after_missed=5, down_after_s=30)
    assert state_after(4.5, slow) == UP and state_after(6, slow) == SUSPECT and state_after(31, slow) == DOWN
    with pytest.raises(ValueError):
        MembershipPolicy(period_s=0.5, suspect_after_missed=3, down_after_s=1.0)  # down before suspect


def test_a_node_whose_connection_broke_goes_down_after_the_grace_not_the_whole_timeout():
    from e3.orchestrator.membership import seen_if_lost

    policy = MembershipPolicy(period_s=0.05, suspect_after_missed=3, down_after_s=1.0, lost_grace_s=0.25)
    seen = seen_if_lost(last_seen=100.0, now=100.0, policy=policy)
    assert state_after(100.2 - seen, policy) == "suspect" and state_after(100.26 - seen, policy) == "down"
    # already silent for longer: the grace never postpones its going down
    assert seen_if_lost(last_seen=98.0, now=100.0, policy=policy) == 98.0
    with pytest.raises(ValueError):
        MembershipPolicy(down_after_s=1.0, lost_grace_s=1.5)
