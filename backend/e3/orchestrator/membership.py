"""Failure detection from heartbeat silence: which nodes are up, suspect or down.

Pure: the caller supplies last-seen times (its own monotonic clock, never the agents' clocks, which
may drift) and applies the transitions.
"""

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

UP, SUSPECT, DOWN = "up", "suspect", "down"


@dataclass(frozen=True)
class MembershipPolicy:
    period_s: float = 0.050  # the heartbeat period the agents were given
    suspect_after_missed: int = 3  # this many missed periods make a node suspect
    down_after_s: float = 1.0  # silent longer than this: down
    # An agent whose connection broke (its process died: the kernel resets its sockets) has this long to
    # be heard from again before its nodes go down; a silent one (a partition) waits down_after_s.
    lost_grace_s: float = 0.25

    def __post_init__(self):
        if self.period_s <= 0 or self.suspect_after_missed < 1:
            raise ValueError("period_s must be positive and suspect_after_missed at least 1")
        if self.down_after_s <= self.suspect_after_s:
            raise ValueError("down_after_s must exceed period_s * suspect_after_missed")
        if not 0 < self.lost_grace_s <= self.down_after_s:
            raise ValueError("lost_grace_s must be in (0, down_after_s]")

    @property
    def suspect_after_s(self) -> float:
        return self.period_s * self.suspect_after_missed


def state_after(silence_s: float, policy: MembershipPolicy) -> str:
    """The state of a node last heard from `silence_s` seconds ago."""
    if silence_s > policy.down_after_s:
        return DOWN
    if silence_s > policy.suspect_after_s:
        return SUSPECT
    return UP


def classify(last_seen: Mapping[Hashable, float], now: float, policy: MembershipPolicy) -> dict[Hashable, str]:
    """Every node's state at `now`, given when each was last heard from (same clock)."""
    return {node: state_after(now - seen, policy) for node, seen in last_seen.items()}


def seen_if_lost(last_seen: float, now: float, policy: MembershipPolicy) -> float:
    """The last-seen time to record for a node whose agent's connection just broke: it goes down
    `lost_grace_s` from now unless heard from again (never later than silence alone would make it)."""
    return min(last_seen, now - policy.down_after_s + policy.lost_grace_s)


def transitions(last_seen: Mapping[Hashable, float], known: Mapping[Hashable, str], now: float,
                policy: MembershipPolicy) -> dict[Hashable, str]:
    """Only the nodes whose state differs from `known`, with their new state."""
    return {node: state for node, state in classify(last_seen, now, policy).items() if known.get(node) != state}
