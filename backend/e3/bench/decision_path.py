"""The orchestrator's decision latency on the real path: section `real` of `e3 bench orchestrator`.

The heartbeat-ingest benchmark (`bench.ingest`: real controller process, embedded Postgres and Redis, the load
generator's simulated type2 agents at 20 Hz a node) with a `DecisionProbe`: `troubled_nics` SmartNICs, one per
server, spread evenly over the cluster, each running one real instance (rows in Postgres: an application, a
placed deployment, a running instance of a service that may run on a host or a SmartNIC), have their queue
stand at 40 packets on an idle link for `window_s` now and then (host starvation; windows `cycle_s` apart, so
the detector's 5 s cool-down is over before the next one; the NICs' windows are staggered evenly over the
cycle, so decisions come at a steady rate instead of in bursts). The controller runs the orchestrator in
`observe` mode: it detects and decides as in `migrate` mode, records both as events, and moves nothing.

Each decision's event says when it was made (`controller.orchestrator.Decided.timing`). The heartbeat that
completed the detection's window is stamped by the generator just before it is written to the socket, on
this machine's clock, so from it to the decision is the time from (just before) the heartbeat's arrival at
the controller's socket to the decision, split into the ingest path (to the detector's verdict) and the
decision (on the event loop when the controller keeps the cluster's view, else a worker thread's hand-off and
the view's read from Postgres; then `decide`). Windows injected, windows in which the generator could send 3
troubled heartbeats, detections and decisions are counted.
"""

import uuid
from dataclasses import asdict, dataclass

from e3.bench.heartbeat_loadgen import NodeProbe
from e3.bench.ingest import IngestConfig, nearest_rank, run_ingest

WINDOW_S = 1.5  # 30 heartbeats of a standing queue: the detector needs 3 in a row, even when the generator skips ticks
QUEUE_LENGTH = 40  # packets; the detector's threshold is 32
FIRST_WINDOW_AFTER_S = 2.0  # the detector has each node's rates by then
APPLICATION = "decision-probe"
DETECTOR_WINDOW = 3  # heartbeats a standing queue must last (DetectionPolicy.window, the default)


@dataclass(frozen=True)
class DecisionProbe:
    troubled_nics: int = 30
    cycle_s: float = 6.0  # > the detector's 5 s cool-down + a window
    window_s: float = WINDOW_S
    seconds: float = 20.0  # the send window (the ingest benchmark's --seconds)

    def windows(self, k: int) -> tuple[tuple[float, float], ...]:
        """NIC k's windows (seconds after the send window's start), staggered over the cycle; only whole windows
        that end a second before the send window does (so their decision is read)."""
        out, start = [], FIRST_WINDOW_AFTER_S + self.cycle_s * k / max(1, self.troubled_nics)
        while start + self.window_s <= self.seconds - 1.0:
            out.append((round(start, 3), round(start + self.window_s, 3)))
            start += self.cycle_s
        return tuple(out)

    @property
    def controller_env(self) -> dict:
        """Observe mode (the ingest benchmark keeps nodes from going down, and failing over, which would move the
        probes' instances, while the rest of the cluster registers)."""
        return {"E3_ORCHESTRATOR": "observe"}

    def prepare(self, cluster: str, agents: list) -> dict[str, NodeProbe]:
        """Pick the NICs, give each a running instance (rows), and say when each is troubled."""
        nics = _spread_nics(agents, self.troubled_nics)
        instance_ids = _place_instances(cluster, nics)
        return {name: NodeProbe((instance_ids[name],), self.windows(k), QUEUE_LENGTH)
                for k, name in enumerate(nics)}

    def collect(self, troubled_sends: list[int]) -> dict:
        """The decisions' timings, read from the events once the streams are done; `troubled_sends`: the
        generator's count of troubled heartbeats sent in each window."""
        from e3.core.db import get_engine
        from sqlalchemy import text

        with get_engine().connect() as conn:
            rows = conn.execute(text("SELECT kind, data FROM events WHERE kind LIKE 'orchestrator.%'")).all()
        get_engine().dispose()
        figures = decision_figures(rows, self.injected(), asdict(self))
        # the detector needs `window` (3) troubled heartbeats in a row: a window the generator could not send
        # that many in (pushed back by the controller) cannot be detected on its own (a streak may go on into the
        # next window if the stream sent nothing in between)
        figures["windows_sent_enough"] = sum(1 for n in troubled_sends if n >= DETECTOR_WINDOW)
        return figures

    def injected(self) -> int:
        return sum(len(self.windows(k)) for k in range(self.troubled_nics))


def _spread_nics(agents: list, count: int) -> list[str]:
    """The first SmartNIC of `count` servers spread evenly over the list (one per server)."""
    servers = [nodes for _, nodes in agents if any(kind == "smartnic" for _, kind in nodes)]
    if count > len(servers):
        raise ValueError(f"{count} troubled NICs need as many servers with a SmartNIC; the cluster has {len(servers)}")
    step = len(servers) / count
    return [next(name for name, kind in servers[int(k * step)] if kind == "smartnic") for k in range(count)]


def _place_instances(cluster: str, nics: list[str]) -> dict[str, str]:
    """An application with one DAG node of a service that may run on hosts and SmartNICs, a placed deployment
    and one running instance on each NIC (as if placed and acknowledged). Returns NIC name -> instance id."""
    from sqlalchemy import insert, select

    from e3 import catalog
    from e3.core.db import get_engine, session_scope
    from e3.core.security import SYSTEM
    from e3.models import Cluster, ComputeNode, Deployment, Instance
    from e3.schemas.dag import validate_application
    from e3.services.applications import create_application

    service = next(t for t in catalog.service_types().values() if set(t.platforms) >= {"host", "smartnic"})
    document = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": APPLICATION},
                "spec": {"nodes": [{"id": "probe", "service": service.name}], "edges": []}}
    ids = {name: str(uuid.uuid4()) for name in nics}
    with session_scope() as session:
        app = create_application(session, validate_application(document), SYSTEM)
        cluster_id = session.scalar(select(Cluster.id).where(Cluster.name == cluster))
        node_ids = dict(session.execute(select(ComputeNode.name, ComputeNode.id)
                                        .where(ComputeNode.cluster_id == cluster_id, ComputeNode.name.in_(nics))).all())
        deployment = Deployment(id=uuid.uuid4(), application_id=app.id, application_version_id=app.versions[0].id,
                                cluster_id=cluster_id, algorithm="hcm", state="placed")
        session.add(deployment)
        session.flush()
        session.execute(insert(Instance), [
            dict(id=uuid.UUID(ids[name]), deployment_id=deployment.id, ordinal=k, dag_node="probe",
                 service=service.name, shard=k, replica=0, role="primary", node_id=node_ids[name],
                 cpu_cores=service.cpu_cores, memory_mb=service.memory_mb, bandwidth_mbps=service.bandwidth_mbps,
                 state="running", port=20000 + k)
            for k, name in enumerate(nics)])
    get_engine().dispose()
    return ids


def _summary(values: list[float]) -> dict:
    p50, p99, top = (nearest_rank(values, q) for q in (50, 99, 100))
    return dict(p50_ms=_ms(p50), p99_ms=_ms(p99), max_ms=_ms(top), samples=len(values))


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def decision_figures(events: list, injected: int, config: dict) -> dict:
    """From the orchestrator's events ((kind, data) rows): detections and decisions counted against the windows
    injected, and the timings (ms) of every decision or finding of none that carries them."""
    kinds = [kind for kind, _ in events]
    timed = [data["timing"] for kind, data in events
             if kind in ("orchestrator.decision", "orchestrator.no_decision") and data.get("timing")
             and data["timing"].get("detected_at") is not None]
    ms = lambda a, b: [(t[b] - t[a]) * 1000 for t in timed]  # noqa: E731
    reasons = sorted({data.get("reason", "") for kind, data in events if kind == "orchestrator.no_decision"})
    return dict(
        injected=injected, detections=kinds.count("orchestrator.detection"),
        decisions=kinds.count("orchestrator.decision"), no_decisions=kinds.count("orchestrator.no_decision"),
        no_decision_reasons=reasons[:3],
        heartbeat_to_decision=_summary(ms("heartbeat_at", "decided_at")),
        heartbeat_to_detection=_summary(ms("heartbeat_at", "detected_at")),
        detection_to_decision=_summary(ms("detected_at", "decided_at")),
        view_read=_summary([t["view_read_ms"] for t in timed]), decide=_summary([t["decide_ms"] for t in timed]),
        config=config)


INGEST_FIGURES = ("servers", "nodes", "scheduled_hz", "ingested_hz", "sent", "loss", "ticks_missed",
                  "controller_cpu_pct", "front", "front_cpu_pct", "postgres_cpu_pct", "loadgen", "loadgen_cpu_pct",
                  "lag_redis_p99_ms", "register_s")


def real_path_section(servers: tuple[int, ...], seconds: float, troubled_nics: int, report=print,
                      front: bool = False) -> dict:
    """One ingest run per cluster size with the probe; the decision figures beside the ingest load they ran
    under. With `front`, the controller runs behind its ingest front, which judges the heartbeats where they
    arrive: the detection's time is the front's."""
    runs = []
    for n in servers:
        probe = DecisionProbe(troubled_nics=min(troubled_nics, n), seconds=seconds)
        report(f"real path at {n:,} servers: {probe.troubled_nics} troubled NICs, {probe.injected()} windows "
               f"in {seconds:g} s")
        result = run_ingest(IngestConfig(servers=n, seconds=seconds, front=front), report=report, probe=probe)
        runs.append(dict({k: result[k] for k in INGEST_FIGURES}, **result["decisions"]))
    return {"section": "real", "runs": runs}
