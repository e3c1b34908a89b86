"""Node positions as small integers, for searches (annealing, ILP) that index nodes by position."""

from collections.abc import Sequence

from e3.placement.model import (LEVEL_POD, LEVEL_RACK_HOST, LEVEL_RACK_SMARTNIC, LEVEL_REMOTE, LEVEL_SAME_NODE,
                                LEVEL_SAME_SERVER, NodeCapacity)


def codes(values) -> list[int]:
    """Small integers for hashable labels, equal where the labels are equal."""
    table: dict = {}
    return [table.setdefault(v, len(table)) for v in values]


class NodePositions:
    """Server, rack and pod of each node (by index) as integer codes, and the level between two nodes."""

    def __init__(self, nodes: Sequence[NodeCapacity]):
        self.server = codes(node.server for node in nodes)
        self.rack = codes(node.rack for node in nodes)
        self.pod = codes(node.pod for node in nodes)
        self.is_nic = [node.kind == "smartnic" for node in nodes]

    def level(self, a: int, b: int) -> int:
        """model.level_between on node indices: how far b is from a."""
        if a == b:
            return LEVEL_SAME_NODE
        if self.server[a] == self.server[b]:
            return LEVEL_SAME_SERVER
        if self.rack[a] == self.rack[b]:
            return LEVEL_RACK_SMARTNIC if self.is_nic[b] else LEVEL_RACK_HOST
        return LEVEL_POD if self.pod[a] == self.pod[b] else LEVEL_REMOTE
