"""The controller's raw tail: each node's latest heartbeats, kept in memory for `GET /nodes/{id}/telemetry`
(docs/controller-scale-out.md §1 and §8).

Postgres keeps 1 s rollups (e3.rollup.steps); the last few seconds of raw 50 ms heartbeats stay here, with the
controller that receives them, as the JSON the live channel publishes (already made by the intake: keeping one
costs a deque append). Each node keeps at most `window_s` seconds' worth at the heartbeat period (a bounded
count, so memory is bounded whatever an agent sends); the API asks for them over the internal gRPC service
e3.internal.v1.TelemetryTail (rpc.tail_servicer). A restarted controller starts with an empty tail.
"""

import math
from collections import deque
from dataclasses import dataclass

DEFAULT_WINDOW_S = 10


@dataclass(frozen=True)
class TailRead:
    items: list[str]  # JSON heartbeats, oldest first
    holds_since_ns: int  # the oldest one held for the node


class RawTail:
    def __init__(self, window_s: int = DEFAULT_WINDOW_S, period_s: float = 0.05):
        if window_s < 0 or period_s <= 0:
            raise ValueError("window_s must be >= 0 and period_s > 0")
        self.window_s = window_s
        self.per_node = math.ceil(window_s / period_s)
        self._nodes: dict[str, deque] = {}

    def node(self, node_id: str) -> deque | None:
        """The node's tail, (timestamp ns, heartbeat JSON) pairs to append to; None when the tail is off."""
        if not self.per_node:
            return None
        tail = self._nodes.get(node_id)
        if tail is None:
            tail = self._nodes[node_id] = deque(maxlen=self.per_node)
        return tail

    def read(self, node_id: str, since_ns: int = 0, until_ns: int = 0, limit: int = 0) -> TailRead | None:
        """The node's heartbeats in (since_ns, until_ns] (0: unbounded), oldest first, the newest `limit` of
        them (0: all); None when none is held for it."""
        tail = self._nodes.get(node_id)
        if not tail:
            return None
        held = list(tail)  # a copy: the intake appends from the same loop, never while this runs
        items = [item for ts, item in held if ts > since_ns and (not until_ns or ts <= until_ns)]
        if limit and len(items) > limit:
            items = items[-limit:]
        return TailRead(items, held[0][0])
