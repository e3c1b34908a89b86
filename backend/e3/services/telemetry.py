"""Node telemetry read back from the stored 1 s rollups (e3.rollup.steps): one node's steps, and a recent
summary per node. (The raw heartbeats of the last seconds are the controller's: api.controller_tail.)

Every power figure carries its source (rapl | ipmi | ipmi-split | model, or mixed when a step's heartbeats
disagree) as the heartbeats gave it.
"""

import uuid
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import distinct_on
from sqlalchemy.orm import Session

from e3.core.errors import NotFound
from e3.models import ComputeNode, instance_rollups, node_rollups

SUMMARY_WINDOW_S = 60  # requests are summed over this many seconds in node listings


def get_node(session: Session, node_id: uuid.UUID) -> ComputeNode:
    node = session.get(ComputeNode, node_id)
    if node is None:
        raise NotFound(f"node {node_id} not found")
    return node


def _ratio(total: float, count: float) -> float:
    return total / count if count else 0.0


def _instance(r) -> dict:
    return dict(instance_id=r.instance_id, heartbeats=r.heartbeats, requests=r.requests,
                exec_time_us=_ratio(r.exec_time_us_sum, r.requests), cpu_seconds=r.cpu_seconds,
                latency_count=r.latency_count, latency_avg_us=_ratio(r.latency_us_sum, r.latency_count),
                latency_p99_us=r.latency_p99_max,
                latency_p99_mean_us=_ratio(r.latency_p99_weighted_sum, r.latency_count))


def _step(r, instances: list[dict]) -> dict:
    n = r.heartbeats
    return dict(resolution=f"{r.step_s}s", ts=r.ts, step_s=r.step_s, last_ts=r.last_ts, heartbeats=n,
                seconds=r.seconds, queue_len=_ratio(r.queue_len_sum, n), queue_len_max=r.queue_len_max,
                cpu_util=_ratio(r.cpu_util_sum, n), cpu_util_max=r.cpu_util_max,
                power=dict(watts=_ratio(r.power_watts_sum, n), source=r.power_source),
                watts_max=r.power_watts_max, joules=r.joules, rx_bytes=r.rx_bytes, tx_bytes=r.tx_bytes,
                rx_packets=r.rx_packets, tx_packets=r.tx_packets, requests=r.requests, instances=instances)


def series(session: Session, node_id: uuid.UUID, since: datetime | None, until: datetime | None,
           limit: int) -> dict:
    """The node's stored steps starting after `since` (exclusive; default: the last minute) up to `until`,
    oldest first, at most `limit`; `next_since` continues after the last one returned."""
    get_node(session, node_id)
    since = since or datetime.now(timezone.utc) - timedelta(seconds=SUMMARY_WINDOW_S)
    stmt = select(node_rollups).where(node_rollups.c.node_id == node_id, node_rollups.c.ts > since)
    if until is not None:
        stmt = stmt.where(node_rollups.c.ts <= until)
    rows = session.execute(stmt.order_by(node_rollups.c.ts).limit(limit)).all()
    by_step: dict[datetime, list[dict]] = {}
    if rows:
        for r in session.execute(select(instance_rollups).where(
                instance_rollups.c.node_id == node_id, instance_rollups.c.ts >= rows[0].ts,
                instance_rollups.c.ts <= rows[-1].ts).order_by(instance_rollups.c.ts, instance_rollups.c.instance_id)):
            by_step.setdefault(r.ts, []).append(_instance(r))
    items = [_step(r, by_step.get(r.ts, [])) for r in rows]
    return dict(node_id=node_id, since=since, until=until, items=items,
                next_since=items[-1]["ts"] if len(items) == limit else None)


def summaries(session: Session, node_ids: list[uuid.UUID], window_s: int = SUMMARY_WINDOW_S) -> dict[uuid.UUID, dict]:
    """Per node with heartbeats in the last `window_s` seconds: its latest step's figures (means over the
    step) and the requests completed over the window."""
    if not node_ids:
        return {}
    since = datetime.now(timezone.utc) - timedelta(seconds=window_s)
    c = node_rollups.c
    latest = session.execute(
        select(c.node_id, c.last_ts, c.heartbeats, c.queue_len_sum, c.cpu_util_sum, c.power_watts_sum,
               c.power_source)
        .where(c.node_id.in_(node_ids), c.ts > since)
        .ext(distinct_on(c.node_id)).order_by(c.node_id, c.ts.desc())).all()
    requests = dict(session.execute(
        select(c.node_id, func.sum(c.requests)).where(c.node_id.in_(node_ids), c.ts > since)
        .group_by(c.node_id)).all())
    return {r.node_id: dict(ts=r.last_ts, queue_len=round(_ratio(r.queue_len_sum, r.heartbeats)),
                            cpu_util=_ratio(r.cpu_util_sum, r.heartbeats),
                            power=dict(watts=_ratio(r.power_watts_sum, r.heartbeats), source=r.power_source),
                            requests=int(requests.get(r.node_id) or 0), window_s=window_s) for r in latest}
