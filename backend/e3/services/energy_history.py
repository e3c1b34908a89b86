"""Energy history read back from the rollups (models.energy_rollup): an application's, a cluster's or a node's
energy, requests and power per step over a window, and the retention that drops old rollups.

The database sums the rows per step (GROUP BY), so a day at 10 s over many instances costs one query whose
answer is at most a point per step and source; e3.energy.history_points turns those sums into points.
"""

import uuid
from collections import defaultdict
from datetime import datetime, timezone

from sqlalchemy import delete, exists, select, text
from sqlalchemy.orm import Session

from e3.core.config import get_settings
from e3.core.errors import NotFound
from e3.energy.history_points import SourceSums, StepWatts, history_point, history_totals
from e3.energy.history_policy import ROLLUP_STEP_S, HistoryWindow, history_window, retention_cutoff
from e3.models import Application, Cluster, energy_rollups
from e3.services.clusters import get_cluster
from e3.services.telemetry import get_node

# Which rows each scope sums: an application's instances (optionally in one cluster), a cluster's or a node's
# own node rows (instance rows hold shares of those: summing both would count the energy twice).
_APPLICATION_ROWS = "instance_id IS NOT NULL AND application = :application"
_IN_CLUSTER = " AND cluster_id = :cluster_id"
_CLUSTER_ROWS = "instance_id IS NULL AND cluster_id = :cluster_id"
_NODE_ROWS = "instance_id IS NULL AND node_id = :node_id"
# Whose requests each scope counts: an application's are those entering it, i.e. completed by its entry
# primaries (rows marked counts_requests; a request crossing five DAG nodes is one request, not five); a
# cluster's, those of all its applications; a node's, what its instances completed (its own row's).
_ENTRY = " AND counts_requests"
_CLUSTER_REQUESTS = "instance_id IS NOT NULL AND cluster_id = :cluster_id AND counts_requests"

# Per step (step_index * step = its start, seconds since the epoch) and source: the rows' sums, with the step's
# power from its rollup buckets (e3.energy.history_points says how). GROUP BY ordinals: the step expression is
# written once per query level.
_STEP_SUMS = """
WITH per_source AS (
    SELECT ts, source, coalesce(sum(joules) FILTER (WHERE {rows}), 0) AS joules,
           coalesce(sum(requests) FILTER (WHERE {counted}), 0) AS requests,
           coalesce(sum(seconds) FILTER (WHERE {rows}), 0) AS seconds,
           sum(joules / nullif(seconds, 0)) FILTER (WHERE {rows}) AS watts,
           max(watts_max) FILTER (WHERE {rows}) AS watts_max
    FROM energy_rollups WHERE (({rows}) OR ({counted})) AND ts >= :start AND ts < :end
    GROUP BY ts, source),
per_bucket AS (
    SELECT ts, sum(watts) AS watts, max(watts_max) AS watts_max FROM per_source GROUP BY ts),
step_watts AS (
    SELECT floor(extract(epoch FROM ts) / :step)::bigint AS step_index,
           avg(watts) AS mean, max(watts) AS bucket_max, max(watts_max) AS row_max
    FROM per_bucket GROUP BY 1),
step_sums AS (
    SELECT floor(extract(epoch FROM ts) / :step)::bigint AS step_index, source,
           sum(joules) AS joules, sum(requests) AS requests, sum(seconds) AS seconds
    FROM per_source GROUP BY 1, 2)
SELECT step_index, source, joules, requests, seconds, mean, bucket_max, row_max
FROM step_sums JOIN step_watts USING (step_index)
"""


def _epoch_start(step_index: int, step_s: int) -> datetime:
    return datetime.fromtimestamp(step_index * step_s, timezone.utc)


def _points(session: Session, rows: str, counted: str, params: dict, window: HistoryWindow,
            group: bool) -> list[dict]:
    found = session.execute(text(_STEP_SUMS.format(rows=rows, counted=counted)),
                            dict(params, start=window.start, end=window.end, step=window.step_s)).all()
    by_source: dict[datetime, dict[str, SourceSums]] = defaultdict(dict)
    watts: dict[datetime, StepWatts] = {}
    for r in found:
        ts = _epoch_start(r.step_index, window.step_s)
        by_source[ts][r.source] = SourceSums(r.joules, int(r.requests), r.seconds)
        watts[ts] = StepWatts(r.mean, r.bucket_max, r.row_max)
    return [history_point(ts, by_source.get(ts, {}), watts.get(ts), group) for ts in window.step_starts()]


def _history(session: Session, scope: dict, rows: str, counted: str, params: dict, start: datetime | None,
             end: datetime | None, step_s: int | None, group: bool) -> dict:
    """`rows`: the rows whose energy the scope sums; `counted`: those whose requests it counts."""
    retention_days = get_settings().energy_retention_days
    window = history_window(start, end, step_s, datetime.now(timezone.utc), retention_days)
    points = _points(session, rows, counted, params, window, group)
    return {"scope": scope, "from": window.start, "to": window.end, "step_s": window.step_s,
            "rollup_step_s": ROLLUP_STEP_S, "retention_days": retention_days, "points": points,
            "totals": history_totals(points)}


def application_energy(session: Session, name: str, start: datetime | None, end: datetime | None,
                       step_s: int | None, cluster: str | None = None) -> dict:
    """The application's instances' energy per step (in one cluster, if named). An application deleted since is
    still answered while its rollups are kept (they carry its name); 404 when neither exists."""
    known = session.scalar(select(exists().where(Application.name == name))) or session.scalar(
        select(exists().where(energy_rollups.c.application == name, energy_rollups.c.instance_id.is_not(None))))
    if not known:
        raise NotFound(f"application '{name}' not found")
    rows, params = _APPLICATION_ROWS, {"application": name}
    if cluster is not None:
        rows, params["cluster_id"] = rows + _IN_CLUSTER, get_cluster(session, cluster).id
    scope = dict(kind="application", name=name, cluster=cluster, node_id=None)
    return _history(session, scope, rows, rows + _ENTRY, params, start, end, step_s, group=True)


def cluster_energy(session: Session, name: str, start: datetime | None, end: datetime | None,
                   step_s: int | None) -> dict:
    """The cluster's nodes' energy per step (their own rows: idle and unattributed energy included)."""
    cluster = get_cluster(session, name)
    scope = dict(kind="cluster", name=name, cluster=name, node_id=None)
    return _history(session, scope, _CLUSTER_ROWS, _CLUSTER_REQUESTS, {"cluster_id": cluster.id}, start, end,
                    step_s, group=True)


def node_energy(session: Session, node_id: uuid.UUID, start: datetime | None, end: datetime | None,
                step_s: int | None) -> dict:
    """One node's energy per step."""
    node = get_node(session, node_id)
    cluster = session.get(Cluster, node.cluster_id)
    scope = dict(kind="node", name=node.name, cluster=cluster.name, node_id=str(node.id))
    return _history(session, scope, _NODE_ROWS, _NODE_ROWS, {"node_id": node.id}, start, end, step_s, group=False)


def drop_expired_rollups(session: Session, now: datetime, retention_days: int | None = None) -> int:
    """Delete the rollups of steps that started before the retention (E3_ENERGY_RETENTION_DAYS unless given);
    the number deleted. The controller calls it hourly; the caller commits."""
    days = get_settings().energy_retention_days if retention_days is None else retention_days
    result = session.execute(delete(energy_rollups).where(energy_rollups.c.ts < retention_cutoff(now, days)))
    return result.rowcount
