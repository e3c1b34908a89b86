"""The last minutes of a cluster's live figures, read back from the stored 1 s rollups (e3.rollup.steps), so that
the dashboard opens (or reloads) showing them at once instead of starting empty; the live channel goes on from
there (docs/live.md, "History at open").

Per node: each step's mean queue depth, CPU utilisation and watts (with their source). Per application: the
requests/s its entry primaries completed, their mean latency and the highest p99 (an upper bound), as the live
channel computes them over a window (e3.live.aggregate), here over each 1 s step. For the cluster: the nodes'
watts and the applications' throughput summed per step, and requests per joule. J/request is not given: it needs
each step's power attributed to the instances (the energy history has it, at 10 s steps: GET
/clusters/{name}/energy).

A point's time is its step's end, in ms since the epoch: when its figures were complete. Blocking (database).
"""

import uuid
from collections import defaultdict
from datetime import datetime, timedelta, timezone

from sqlalchemy import select
from sqlalchemy.orm import Session

from e3.energy.joules import requests_per_joule
from e3.live.hub import load_meta
from e3.models import instance_rollups, node_rollups

MAX_MINUTES = 60
MAX_NODE_SERIES = 500  # per-node series beyond this many nodes are left out (said in the answer)


def _ms(ts: datetime, step_s: int) -> int:
    return int((ts.timestamp() + step_s) * 1000)


def _mean(total: float, n: int) -> float | None:
    return total / n if n else None


def recent(session: Session, cluster_name: str, minutes: int, now: datetime | None = None) -> dict:
    """The cluster's figures of the last `minutes` (1..MAX_MINUTES). NotFound for an unknown cluster."""
    meta, _ = load_meta(session, cluster_name)
    since = (now or datetime.now(timezone.utc)) - timedelta(minutes=minutes)
    node_ids = sorted(meta.nodes, key=lambda n: meta.nodes[n].name)
    shown = set(node_ids[:MAX_NODE_SERIES])
    nodes: dict[str, list] = defaultdict(list)
    watts_by_t: dict[int, float] = defaultdict(float)
    c = node_rollups.c
    for r in session.execute(
            select(c.node_id, c.ts, c.step_s, c.heartbeats, c.queue_len_sum, c.cpu_util_sum, c.power_watts_sum,
                   c.power_source)
            .where(c.node_id.in_([uuid.UUID(n) for n in node_ids]), c.ts > since).order_by(c.node_id, c.ts)):
        t, watts = _ms(r.ts, r.step_s), _mean(r.power_watts_sum, r.heartbeats)
        watts_by_t[t] += watts or 0.0
        if str(r.node_id) in shown:
            nodes[str(r.node_id)].append([t, _mean(r.queue_len_sum, r.heartbeats), _mean(r.cpu_util_sum, r.heartbeats),
                                          watts, r.power_source])
    applications = _applications(session, meta, since)
    throughput_by_t: dict[int, float] = defaultdict(float)
    for app in applications:
        for t, rps, *_ in app["points"]:
            throughput_by_t[t] += rps
    totals = [[t, watts_by_t[t], throughput_by_t.get(t), requests_per_joule(watts_by_t[t], throughput_by_t.get(t))]
              for t in sorted(watts_by_t)]
    return dict(cluster=meta.name, since=since, minutes=minutes, step_s=1,
                nodes=[dict(node_id=n, points=points) for n, points in nodes.items()],
                nodes_left_out=max(0, len(node_ids) - MAX_NODE_SERIES), applications=applications, totals=totals)


def _applications(session: Session, meta, since: datetime) -> list[dict]:
    """Per deployment: [t, requests/s, mean latency µs or None, highest p99 µs or None] per step of its entry
    primaries (the DAG nodes no edge leads to), as the live channel's throughput and latency."""
    entries = {dep: app.entries for dep, app in meta.apps.items()}  # each derived once, not per instance
    entry = {iid: inst.deployment_id for iid, inst in meta.instances.items()
             if inst.role == "primary" and inst.dag_node in entries[inst.deployment_id]}
    steps: dict[str, dict[int, list]] = {dep: {} for dep in meta.apps}
    if entry:
        c = instance_rollups.c
        for r in session.execute(
                select(c.instance_id, c.ts, c.step_s, c.requests, c.latency_count, c.latency_us_sum, c.latency_p99_max)
                .where(c.instance_id.in_(list(entry)), c.ts > since)):
            step = steps[entry[r.instance_id]].setdefault(_ms(r.ts, r.step_s), [0.0, 0, 0.0, None, r.step_s])
            step[0] += r.requests
            step[1] += r.latency_count
            step[2] += r.latency_us_sum
            if r.latency_count:
                step[3] = max(step[3] or 0.0, r.latency_p99_max)
    return [dict(deployment_id=dep, application=meta.apps[dep].application,
                 points=[[t, s[0] / s[4], _mean(s[2], s[1]), s[3]] for t, s in sorted(by_t.items())])
            for dep, by_t in steps.items()]
