"""The cluster as it was at a past moment, for replay (docs/replay.md): which instance was on which node, the
nodes' states, and each application's figures then.

- Placement: the latest `instance_history` row of each instance at or before the moment (written by a trigger on
  every change of an instance, models/instance_history.py); instances whose latest row says `gone` were removed.
  Before the first recorded row the placement is not known: the answer says since when it is
  (`placement_recorded_since`) rather than showing an empty cluster as if it had been one.
- Node states: the last node.up / node.suspect / node.down event at or before the moment; a node with none then
  was in the state its first later event says it left (`previous`), and one with none at all is as now.
- Figures: an application's throughput and latency at its entry primaries over the MOMENT_WINDOW_S before the
  moment (the stored 1 s rollups), its joules per request and power over the energy history's step holding the
  moment (10 s rollups, with their source), and the cluster's power over that step.

The topology is today's: a node added since is shown (with no instances), one removed since is not. The answer is
written as JSON here, its nodes by PostgreSQL (services/cluster_layout.py), not validated again: at 10,000 servers
that took most of its time.
Blocking (database).
"""

import uuid
from collections import defaultdict
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from e3.core.config import get_settings
from e3.core.errors import FieldError, ValidationFailed
from e3.energy.history_policy import ROLLUP_STEP_S, retention_cutoff
from e3.models import ApplicationVersion, Deployment, instance_history, instance_rollups
from e3.schemas.dag import ApplicationSpec
from e3.services import energy_history
from e3.services.cluster_layout import json_with, layout_json
from e3.services.layout_topology import NodesAt
from e3.services.clusters import get_cluster

MOMENT_WINDOW_S = 10  # throughput and latency at a moment: over this many seconds before it
FUTURE_SLACK = timedelta(seconds=5)  # a moment this far past the server's clock is taken as now (clock skew)
NODE_STATE_KINDS = ("node.up", "node.suspect", "node.down")

_PLACEMENT_AT = """
SELECT * FROM (
    SELECT DISTINCT ON (instance_id) * FROM instance_history
    WHERE cluster_id = :cluster_id AND ts <= :at ORDER BY instance_id, id DESC) latest
WHERE NOT gone ORDER BY deployment_id, dag_node, shard, replica
"""
# Rows older than the retention that a replay no longer needs: all but each instance's latest one before the
# cutoff, and that one too when it says the instance was removed.
_EXPIRED = """
DELETE FROM instance_history h WHERE h.ts < :cutoff AND (h.gone OR EXISTS (
    SELECT 1 FROM instance_history n WHERE n.instance_id = h.instance_id AND n.id > h.id AND n.ts < :cutoff))
"""
_STATE_AT = """
SELECT DISTINCT ON (subject) subject, kind FROM events
WHERE cluster_id = :cluster_id AND kind = ANY(:kinds) AND ts <= :at ORDER BY subject, ts DESC, id DESC
"""
_STATE_LEFT_AFTER = """
SELECT DISTINCT ON (subject) subject, data->>'previous' AS previous FROM events
WHERE cluster_id = :cluster_id AND kind = ANY(:kinds) AND ts > :at ORDER BY subject, ts, id
"""


def cluster_moment(session: Session, name: str, at: datetime, now: datetime | None = None) -> bytes:
    """GET /clusters/{name}/moment's answer (schemas/layout.py ClusterMoment): the cluster at `at` (aware).
    ValidationFailed naming `at` for a naive time or one in the future; NotFound for an unknown cluster."""
    now = now or datetime.now(timezone.utc)
    if at.tzinfo is None:
        raise ValidationFailed([FieldError("at", "needs a time zone, e.g. 2026-11-21T10:00:00Z", "naive_datetime")])
    if at > now + FUTURE_SLACK:
        raise ValidationFailed([FieldError("at", f"is in the future (the server's time is {now.isoformat()})",
                                           "in_the_future")])
    cluster = get_cluster(session, name)
    params = dict(cluster_id=cluster.id, at=at)
    rows = session.execute(text(_PLACEMENT_AT), params).all()
    first = session.scalar(select(func.min(instance_history.c.ts)).where(instance_history.c.cluster_id == cluster.id))
    # Past the retention, instances removed then are forgotten: the placement is known from the cutoff on.
    recorded_since = first and max(first, retention_cutoff(now, get_settings().energy_retention_days))
    deployments = _deployments(session, rows)
    known = {d.id for d in deployments}
    rows = [r for r in rows if r.deployment_id in known]
    cores: dict[str, float] = defaultdict(float)
    memory_mb: dict[str, int] = defaultdict(int)
    for r in rows:
        cores[str(r.node_id)] += r.cpu_cores
        memory_mb[str(r.node_id)] += r.memory_mb
    states = {subject.removeprefix("node/"): state for subject, state in _node_states(session, params).items()}
    layout = layout_json(session, cluster, deployments, [_InstanceAt(r) for r in rows], error=lambda _: None,
                         at=NodesAt(cores=cores, memory_mb=memory_mb, states=states))
    return json_with(dict(cluster=cluster.name, at=at, placement_recorded_since=recorded_since,
                          placement_known=recorded_since is not None and recorded_since <= at,
                          applications=_application_figures(session, cluster.name, deployments, rows, at, now),
                          power=_cluster_power(session, cluster.name, at, now)),
                     layout=layout)


class _InstanceAt:
    """A history row as the layout reads an instance (a replayed instance has no agent refusal to show)."""

    __slots__ = ("id", "node_id", "deployment_id", "dag_node", "service", "shard", "replica", "state", "error")

    def __init__(self, row):
        self.id, self.node_id, self.deployment_id = row.instance_id, row.node_id, row.deployment_id
        self.dag_node, self.service, self.shard, self.replica = row.dag_node, row.service, row.shard, row.replica
        self.state, self.error = row.state, None


class _DeploymentAt:
    __slots__ = ("id", "application", "version", "algorithm", "spec")

    def __init__(self, id, application, version, algorithm, spec):
        self.id, self.application, self.version, self.algorithm, self.spec = id, application, version, algorithm, spec


def _deployments(session: Session, rows) -> list[_DeploymentAt]:
    """The deployments the rows' instances belonged to, oldest first, with their DAG. One whose version is gone
    too (its application deleted) cannot be drawn and is left out."""
    first_row: dict[uuid.UUID, object] = {}
    for r in rows:
        first_row.setdefault(r.deployment_id, r)
    versions = {v.id: v for v in session.execute(
        select(ApplicationVersion.id, ApplicationVersion.version, ApplicationVersion.spec)
        .where(ApplicationVersion.id.in_({r.application_version_id for r in first_row.values()}))).all()}
    created = dict(session.execute(select(Deployment.id, Deployment.created_at)
                                   .where(Deployment.id.in_(list(first_row)))).all())
    found = [_DeploymentAt(dep, r.application, versions[r.application_version_id].version, r.algorithm,
                           versions[r.application_version_id].spec)
             for dep, r in first_row.items() if r.application_version_id in versions]
    oldest = datetime.min.replace(tzinfo=timezone.utc)
    return sorted(found, key=lambda d: (created.get(d.id, oldest), str(d.id)))


def _node_states(session: Session, params: dict) -> dict[str, str]:
    """Subject ("node/<id>") → its state at the moment, for the nodes whose events say it."""
    params = dict(params, kinds=list(NODE_STATE_KINDS))
    states = {r.subject: r.previous for r in session.execute(text(_STATE_LEFT_AFTER), params)
              if r.previous in ("up", "suspect", "down")}
    states.update({r.subject: r.kind.removeprefix("node.") for r in session.execute(text(_STATE_AT), params)})
    return states


def _application_figures(session: Session, cluster: str, deployments, rows, at: datetime, now: datetime) -> list[dict]:
    """Per deployment at the moment: throughput and latency at its entry primaries over the MOMENT_WINDOW_S
    before it; joules per request and power of its application over the energy step holding it."""
    entry = {}
    for d in deployments:
        sources = {n.id for n in ApplicationSpec.from_document(d.spec).sources()}
        entry.update({r.instance_id: d.id for r in rows
                      if r.deployment_id == d.id and r.role == "primary" and r.dag_node in sources})
    sums: dict[uuid.UUID, list] = {d.id: [0, 0, 0.0, None] for d in deployments}
    if entry:
        c = instance_rollups.c
        for r in session.execute(
                select(c.instance_id, c.requests, c.latency_count, c.latency_us_sum, c.latency_p99_max)
                .where(c.instance_id.in_([str(i) for i in entry]), c.ts >= at - timedelta(seconds=MOMENT_WINDOW_S),
                       c.ts < at)):
            s = sums[entry[uuid.UUID(r.instance_id)]]
            s[0] += r.requests
            s[1] += r.latency_count
            s[2] += r.latency_us_sum
            if r.latency_count:
                s[3] = max(s[3] or 0.0, r.latency_p99_max)
    energy = {d.application: _energy_at(session, at, now, energy_history.application_energy, d.application,
                                        cluster=cluster) for d in deployments}
    return [dict(deployment_id=d.id, application=d.application, window_s=MOMENT_WINDOW_S,
                 throughput_rps=sums[d.id][0] / MOMENT_WINDOW_S,
                 avg_latency_us=sums[d.id][2] / sums[d.id][1] if sums[d.id][1] else None,
                 p99_latency_us=sums[d.id][3], **energy[d.application])
            for d in deployments]


def _cluster_power(session: Session, cluster: str, at: datetime, now: datetime) -> dict:
    return _energy_at(session, at, now, energy_history.cluster_energy, cluster)


def _energy_at(session: Session, at: datetime, now: datetime, history, name: str, **kwargs) -> dict:
    """The energy history's step holding `at` (ROLLUP_STEP_S long): joules per request, mean watts and their
    source; all None when nothing was recorded then or it is past the energy retention."""
    start = at - timedelta(seconds=ROLLUP_STEP_S)
    empty = dict(joules_per_request=None, watts=None, energy_source=None, energy_from=None, energy_to=None)
    if start < retention_cutoff(now, get_settings().energy_retention_days):
        return empty
    found = history(session, name, start, at, ROLLUP_STEP_S, **kwargs)
    points = [p for p in found["points"] if p["source"] is not None]
    if not points:
        return empty
    p = points[-1]
    return dict(joules_per_request=p["joules_per_request"], watts=p["watts_mean"], energy_source=p["source"],
                energy_from=p["ts"], energy_to=p["ts"] + timedelta(seconds=found["step_s"]))


def drop_expired_history(session: Session, now: datetime, retention_days: int | None = None) -> int:
    """Forget the instance history older than the retention (E3_ENERGY_RETENTION_DAYS unless given), keeping what
    a replay after the cutoff needs: the number of rows deleted. The controller calls it hourly with the energy
    rollups' retention; the caller commits."""
    days = get_settings().energy_retention_days if retention_days is None else retention_days
    return session.execute(text(_EXPIRED), dict(cutoff=retention_cutoff(now, days))).rowcount
