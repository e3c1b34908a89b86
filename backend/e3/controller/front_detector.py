"""The orchestrator's detector when the ingest front judges the heartbeats (docs/controller-scale-out.md §2).

Behind its front (agents/e3-ingest) the controller never sees a SmartNIC heartbeat: the front runs the detector
itself (src/detector.cc, a port of e3.orchestrator.detection checked against it by a golden fixture) on each one
it accepts, and delivers what it detects (controller.front_delivery hands them to `DataplaneOrchestrator.detected`).
What the orchestrator tells its detector goes to the front over the node table's watch (controller.front_table),
in order with the nodes' changes: the policy and whether to judge at all (mode `off`), a node to forget (down or
gone), a node to leave alone after a decision (`cool_down`), and a reset (mode back to `migrate`).
"""

import uuid

from e3.controller.front_table import FrontTable
from e3.orchestrator.detection import DetectionPolicy


class FrontDetector:
    def __init__(self, table: FrontTable, policy: DetectionPolicy, mode: str):
        self.table = table
        self.policy = policy
        table.set_detection(policy, judging=mode != "off")

    def observe(self, sample):
        raise RuntimeError("behind the ingest front, the front judges the heartbeats")

    def forget(self, node_id: uuid.UUID) -> None:
        self.table.detector_forget(node_id)

    def cool_down(self, node_id: uuid.UUID, t: float) -> None:
        self.table.detector_cool_down(node_id, t)

    def reset(self) -> None:
        self.table.detector_reset()

    def mode_changed(self, mode: str) -> None:
        self.table.set_detection(self.policy, judging=mode != "off")
