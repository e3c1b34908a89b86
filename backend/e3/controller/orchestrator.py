"""The controller's data-plane orchestrator (paper §3.4): heartbeats of SmartNICs in, migrations out.

`DataplaneOrchestrator.observe` takes every accepted heartbeat of a SmartNIC node on the controller's
loop (`orchestrator.detection`, pure and cheap). A detection is acted on in a worker thread
(`act_on_detection`): the decision, made on the cluster's view kept by `ClusterViewCache` (not read from the
database per decision), then an `orchestrator.detection` event, the decision (`orchestrator.decision`) or
why there is none (`orchestrator.no_decision`), each saying when it was made, and in `migrate` mode the
migration itself, requested like a manual one (same checks, reason `host_starvation` or `overload`) and
queued to a worker.
Modes (E3_ORCHESTRATOR): `migrate` (the default), `observe` (detections and decisions are events,
nothing moves), `off` (heartbeats are not judged).
"""

import asyncio
import functools
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from e3.controller.cluster_view_cache import CachedView, ClusterViewCache
from e3.core.db import in_session
from e3.core.errors import E3Error
from e3.core.security import Actor
from e3.orchestrator.decision import Decision, NoDecision, decide
from e3.orchestrator.detection import SMARTNIC, Detection, DetectionPolicy, Detector, NodeSample
from e3.services import events
from e3.services.cluster_views import cluster_view
from e3.services.migration import records
from e3.services.migration.queue import queue_migration
from e3.services.orchestrator_mode import MODE_KEY, MODES

log = logging.getLogger(__name__)
MODE_POLL_S = 1.0
ORCHESTRATOR = Actor(token_id=None, name="orchestrator", scopes=frozenset({"deploy"}))


@dataclass(frozen=True)
class Acted:
    decided: bool  # a decision was made (the node cools down whether or not the migration was accepted)
    migration_id: uuid.UUID | None = None  # the migration recorded, to be queued


@dataclass(frozen=True)
class Decided:
    """A decision (or the finding that there is none) and how it was made: getting the cluster's view (read from
    the database, or kept: how old it was), then `decide`; `decided_at` on the wall clock."""
    outcome: Decision | NoDecision
    view_read_s: float
    view_age_s: float
    decide_s: float
    decided_at: float

    def timing(self, detection: Detection, detected_at: float | None) -> dict:
        """For the events: also the heartbeat that completed the detection's window (its timestamp, the agent's
        wall clock) and when the controller saw it (`detected_at`, its wall clock, as it judged the heartbeat).
        Wall-clock seconds since the epoch, steps in ms."""
        return dict(heartbeat_at=detection.t, detected_at=detected_at, decided_at=self.decided_at,
                    view_read_ms=round(self.view_read_s * 1000, 3), view_age_ms=round(self.view_age_s * 1000, 1),
                    decide_ms=round(self.decide_s * 1000, 3))


def decide_on(cached: CachedView, view_age_s: float, view_read_s: float, detection: Detection, mode: str,
              wait: bool = True) -> Decided | None:
    """Decide on a view; in `migrate` mode the decision is written into it, so the next one sees it. Without
    `wait`, None when another decision holds the view."""
    if not cached.lock.acquire(blocking=wait):
        return None
    try:
        started = time.perf_counter()
        outcome = decide(detection, cached.view)
        decide_s = time.perf_counter() - started
        if isinstance(outcome, Decision) and mode == "migrate":
            cached.view.begin_migration(outcome)
    finally:
        cached.lock.release()
    return Decided(outcome, view_read_s, view_age_s, decide_s, time.time())


def act_on_detection(session, cluster_id: uuid.UUID, detection: Detection, mode: str,
                     detected_at: float | None = None, views: ClusterViewCache | None = None,
                     decided: Decided | None = None) -> Acted:
    """Decide (unless `decided` already), record the detection and the decision (or why there is none), and in
    `migrate` mode request the migration (committed by the caller's transaction; the migration is then queued by
    the caller). The decision is made on the cluster's view kept in `views` (read now when there is none; `views`
    None: read for this decision alone), before anything is written; its event says when it was made."""
    if decided is None:
        started = time.perf_counter()
        cached, age = views.get(session, cluster_id) if views else (CachedView(cluster_view(session, cluster_id), 0),
                                                                     0.0)
        decided = decide_on(cached, age, time.perf_counter() - started, detection, mode)
    outcome, timing = decided.outcome, decided.timing(detection, detected_at)
    subject = f"node/{detection.node_id}"
    # an overload concerns one instance (its application); a host starvation the node, until a decision picks one
    app = events.application_of(session, instance_id=detection.instance_id)
    events.emit(session, "orchestrator.detection", subject, cluster_id, trouble=detection.kind,
                instance_id=detection.instance_id, detail=detection.detail, application=app)
    if not isinstance(outcome, Decision):
        events.emit(session, "orchestrator.no_decision", subject, cluster_id, trouble=detection.kind,
                    reason=outcome.reason, detail=outcome.detail, application=app, timing=timing)
        return Acted(False)
    app = events.application_of(session, instance_id=outcome.instance_id)
    events.emit(session, "orchestrator.decision", subject, cluster_id, trouble=detection.kind, application=app,
                instance_id=outcome.instance_id, target_node_id=str(outcome.target_node_id), level=outcome.level,
                mode=mode, detail=outcome.detail, timing=timing)
    if mode != "migrate":
        return Acted(True)
    session.commit()  # the events stay whatever the request says
    try:
        _, migration = records.request_migration(session, uuid.UUID(outcome.instance_id),
                                                    str(outcome.target_node_id), dry_run=False, actor=ORCHESTRATOR,
                                                    reason=detection.kind)
    except E3Error as exc:  # e.g. the instance started migrating since the view was read
        session.rollback()
        if views:
            views.invalidate(cluster_id)
        why = "; ".join(e.message for e in exc.errors) or exc.message
        events.emit(session, "orchestrator.no_decision", subject, cluster_id, trouble=detection.kind,
                    application=app, reason=f"migration refused ({exc.code}): {why}",
                    detail=dict(instance_id=outcome.instance_id))
        return Acted(True)
    return Acted(True, migration.id)


def _run_detection(session, cluster_id: uuid.UUID, detection: Detection, mode: str, detected_at: float,
                   decided: Decided | None, views: ClusterViewCache) -> Acted:
    acted = act_on_detection(session, cluster_id, detection, mode, detected_at, views, decided)
    if acted.migration_id is not None:
        queue_migration(session, acted.migration_id)
    return acted


class DataplaneOrchestrator:
    """Judges SmartNIC heartbeats as they arrive and acts on detections, one at a time per node."""

    def __init__(self, mode: str = "migrate", policy: DetectionPolicy | None = None,
                 act: Callable[..., Acted] | None = None, views: ClusterViewCache | None = None):
        if mode not in MODES:
            raise ValueError(f"orchestrator mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = self.default_mode = mode
        # the heartbeats' judge: this Detector, or the ingest front's (controller.front_detector), which judges them
        # where they arrive and reports its detections to `detected`
        self.detector = Detector(policy)
        self.mode_listeners: list[Callable[[str], None]] = []  # told each new mode (the front's detector is)
        self.views = views or ClusterViewCache(cluster_view)
        self._act = act or functools.partial(_run_detection, views=self.views)
        self._acting: dict[uuid.UUID, asyncio.Task] = {}
        self.detections = 0

    def observe(self, node, hb) -> None:
        """One accepted Heartbeat message of `node` (a TrackedNode: node_id, cluster_id, kind, bandwidth_mbps)."""
        if self.mode == "off" or node.kind != SMARTNIC:
            return
        # the message's InstanceStats as they came: copying them into InstanceSamples cost more than judging them
        sample = NodeSample(node.node_id, hb.timestamp_unix_ns / 1e9, hb.queue_length, hb.rx_bytes, hb.tx_bytes,
                            node.bandwidth_mbps, hb.instances)
        detection = self.detector.observe(sample)
        if detection is not None:
            self.detected(node, detection, time.time())

    def detected(self, node, detection: Detection, detected_at: float) -> None:
        """Act on a detection about `node`, made at `detected_at` (wall clock) by this detector or by the ingest
        front's (controller.front_detector), unless one is being acted on for the node already."""
        if node.node_id in self._acting:
            return
        self.detections += 1
        log.info("node %s: %s detected (%s)", node.name, detection.kind, detection.instance_id or "queue")
        mode = self.mode  # the mode the decision is made in is the one it is acted in
        decided = self._decide_now(node.cluster_id, detection, mode)
        self._acting[node.node_id] = asyncio.get_running_loop().create_task(
            self._handle(node, detection, mode, detected_at, decided), name=f"orchestrate-{node.name}")

    def _decide_now(self, cluster_id: uuid.UUID, detection: Detection, mode: str) -> Decided | None:
        """On the loop, when the cluster's view is kept and no worker holds it (decide takes ~0.1 ms); else None
        and the worker thread decides, reading the view if it must. A decision a kept view gives is only proposed
        (the migration request checks it again), but finding none is final: the detector keeps the node latched
        until its trouble clears. So none found on a view older than `views.fresh_s` is looked for again on one
        read now (the view may miss a host that came up since it was read, e.g. during registration)."""
        kept = self.views.kept(cluster_id)
        if kept is None:
            return None
        decided = decide_on(*kept, 0.0, detection, mode, wait=False)
        if decided is not None and isinstance(decided.outcome, NoDecision) \
                and kept[1] >= self.views.fresh_s:
            self.views.invalidate(cluster_id)
            return None
        return decided

    async def _handle(self, node, detection: Detection, mode: str, detected_at: float,
                      decided: Decided | None) -> None:
        try:
            acted = await asyncio.to_thread(in_session, self._act, node.cluster_id, detection, mode, detected_at,
                                            decided)
            if acted.decided:
                self.detector.cool_down(node.node_id, detection.t)
        except Exception:
            log.exception("acting on a %s detection on node %s failed", detection.kind, node.name)
        finally:
            self._acting.pop(node.node_id, None)

    async def follow_mode(self, redis) -> None:
        """Follow the mode set through the API (orchestrator_mode), forever; the default when none is set."""
        while True:
            try:
                value = await redis.get(MODE_KEY)
                mode = value.decode() if value is not None else self.default_mode
                if mode in MODES and mode != self.mode:
                    log.info("orchestrator mode: %s -> %s", self.mode, mode)
                    if mode == "migrate":  # trouble seen while observing is latched and cooling down: start afresh
                        self.detector.reset()
                    self.mode = mode
                    for listener in self.mode_listeners:
                        listener(mode)
            except Exception as exc:  # Redis away: keep the mode in force
                log.warning("reading the orchestrator mode from Redis failed: %s", exc)
            await asyncio.sleep(MODE_POLL_S)

    def keep_views(self, nodes) -> None:
        """Keep read the views of the clusters of `nodes` (TrackedNodes: cluster_id, kind, state, heard) that have a
        SmartNIC up and heard from here, unless nothing is judged (mode `off`): the first decision then finds its view
        (controller.cluster_view_cache). A cluster whose SmartNICs are all down, or only watched for the leader, is
        left alone: nothing is decided for it here."""
        if self.mode != "off":
            self.views.warm({node.cluster_id for node in nodes
                             if node.kind == SMARTNIC and node.state != "down" and node.heard})

    def forget(self, node_id: uuid.UUID) -> None:
        """A node went down or left: its detection state starts afresh when it is back, and no decision is made
        on a view that still has it up."""
        self.detector.forget(node_id)
        self.views.invalidate()

    async def stop(self) -> None:
        tasks = list(self._acting.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
