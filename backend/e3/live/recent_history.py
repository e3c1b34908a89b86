"""The last minutes (up to 7 days) of a cluster's live figures, read back from the stored 1 s rollups
(e3.rollup.steps), so that the dashboard opens (or reloads) showing them at once instead of starting empty, and
its time-range picker can show a longer window; the live channel goes on from there (docs/live.md, "History at
open").

The rollup rows are merged into steps of `step_s` seconds in the database (every figure is a sum, a count or a
maximum): the smallest of STEPS_S giving at most MAX_POINTS steps over the window, so 1 s up to 12 minutes and
900 s over 7 days. Steps are aligned to multiples of `step_s` since the epoch, so the same instant falls in the
same point whatever window is asked; the window holds the steps starting after its start (at 1 s: the rows after
it).

Per node: each step's mean queue depth, CPU utilisation and watts (means weighted by heartbeats), with their
source (`mixed` when its rows differ). Per application: the requests/s its entry primaries completed over the
step's length, their mean latency and the highest p99 (an upper bound), as the live channel computes them over a
window (e3.live.aggregate), here over each step. For the cluster: the nodes' watts and the applications'
throughput summed per step, and requests per joule. J/request is not given: it needs each step's power attributed
to the instances (the energy history has it, at 10 s steps: GET /clusters/{name}/energy).

A point's time is its step's end, in ms since the epoch: when its figures were complete. Blocking (database).
"""

import math
import uuid
from collections import defaultdict
from datetime import datetime, timedelta, timezone

from sqlalchemy import BigInteger, Float, case, func, literal_column, select, text
from sqlalchemy.orm import Session

from e3.energy.joules import requests_per_joule
from e3.live.hub import load_meta
from e3.models import instance_rollups, node_rollups
from e3.rollup.steps import MIXED

MAX_MINUTES = 7 * 24 * 60
STEPS_S = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600)  # the steps a window is read in
MAX_POINTS = 720  # steps over a window at most: a chart's width
MAX_NODE_SERIES = 500  # per-node series beyond this many nodes are left out (said in the answer)


def step_for(minutes: int) -> int:
    """The smallest of STEPS_S that covers `minutes` in at most MAX_POINTS steps."""
    return next((s for s in STEPS_S if minutes * 60 <= MAX_POINTS * s), STEPS_S[-1])


def first_step(since: datetime, step_s: int) -> datetime:
    """The start of the first step (aligned to multiples of `step_s` since the epoch) that starts after `since`:
    the window's first, so that every point of it is a whole step."""
    return datetime.fromtimestamp((math.floor(since.timestamp() / step_s) + 1) * step_s, timezone.utc)


def _mean(total: float, n: int) -> float | None:
    return total / n if n else None


def _steps(table, step_s: int):
    """The expressions grouping `table`'s rows into steps of `step_s` aligned to multiples of it since the epoch:
    the step's start (date_bin: the same steps as floor(epoch / step_s), at a third less cost) and its length. A step
    is as long as its longest row if rows are coarser than `step_s` (1 s rows today), so that requests are
    divided by the time they were counted over."""
    step = int(step_s)  # one of STEPS_S, written in the SQL so that GROUP BY sees the same term as SELECT
    start = func.date_bin(literal_column(f"interval '{step} seconds'"), table.c.ts,
                          literal_column("timestamptz 'epoch'"))
    return start, func.greatest(literal_column(str(step)), func.max(table.c.step_s))


def _end_ms(start: datetime, span: int) -> int:
    return int((start.timestamp() + span) * 1000)


def recent(session: Session, cluster_name: str, minutes: int, now: datetime | None = None) -> dict:
    """The cluster's figures of the last `minutes` (1..MAX_MINUTES). NotFound for an unknown cluster."""
    meta, _ = load_meta(session, cluster_name)
    since = (now or datetime.now(timezone.utc)) - timedelta(minutes=minutes)
    step_s = step_for(minutes)
    first = first_step(since, step_s)
    # The planner cannot tell that a week of rows falls into a few thousand steps and would sort them all (on disk)
    # to group them; hashing them is three times faster. For this transaction only.
    session.execute(text("SET LOCAL enable_sort = off"))
    node_ids = sorted(meta.nodes, key=lambda n: meta.nodes[n].name)
    shown = set(node_ids[:MAX_NODE_SERIES])
    nodes: dict[str, list] = defaultdict(list)
    watts_by_t: dict[int, float] = defaultdict(float)
    for r in _node_steps(session, node_ids, first, step_s):
        t, watts = _end_ms(r.start, r.span), _mean(r.power_watts_sum, r.heartbeats)
        watts_by_t[t] += watts or 0.0
        if str(r.node_id) in shown:
            nodes[str(r.node_id)].append([t, _mean(r.queue_len_sum, r.heartbeats), _mean(r.cpu_util_sum, r.heartbeats),
                                          watts, r.power_source])
    applications = _applications(session, meta, first, step_s)
    throughput_by_t: dict[int, float] = defaultdict(float)
    for app in applications:
        for t, rps, *_ in app["points"]:
            throughput_by_t[t] += rps
    totals = [[t, watts_by_t[t], throughput_by_t.get(t), requests_per_joule(watts_by_t[t], throughput_by_t.get(t))]
              for t in sorted(watts_by_t)]
    return dict(cluster=meta.name, since=since, minutes=minutes, step_s=step_s,
                nodes=[dict(node_id=n, points=points) for n, points in nodes.items()],
                nodes_left_out=max(0, len(node_ids) - MAX_NODE_SERIES), applications=applications, totals=totals)


def _node_steps(session: Session, node_ids: list[str], first: datetime, step_s: int) -> list:
    """Per node and step from `first` (by node, then time): the step's start and length, Σ heartbeats, Σ queue
    length, Σ CPU utilisation, Σ watts, and the power source (`mixed` when its rows differ)."""
    c = node_rollups.c
    start, span = _steps(node_rollups, step_s)
    source = case((func.min(c.power_source) == func.max(c.power_source), func.min(c.power_source)), else_=MIXED)
    rows = session.execute(
        select(c.node_id, start.label("start"), span.label("span"), func.sum(c.heartbeats).label("heartbeats"),
               func.sum(c.queue_len_sum).cast(Float).label("queue_len_sum"),
               func.sum(c.cpu_util_sum).label("cpu_util_sum"), func.sum(c.power_watts_sum).label("power_watts_sum"),
               source.label("power_source"))
        .where(c.node_id.in_([uuid.UUID(n) for n in node_ids]), c.ts >= first)
        .group_by(c.node_id, start)).all()
    return sorted(rows, key=lambda r: (r.node_id, r.start))  # the few steps sorted here: sorting is off (recent)


def _instance_steps(session: Session, instance_ids: list[str], first: datetime, step_s: int):
    """Per instance and step from `first`: the step's start and length, Σ requests, Σ latency count, Σ latency µs,
    and the highest p99 among its rows that measured a latency (None if none did)."""
    c = instance_rollups.c
    start, span = _steps(instance_rollups, step_s)
    return session.execute(
        select(c.instance_id, start.label("start"), span.label("span"),
               func.sum(c.requests).cast(BigInteger).label("requests"),
               func.sum(c.latency_count).cast(BigInteger).label("latency_count"),
               func.sum(c.latency_us_sum).label("latency_us_sum"),
               func.max(c.latency_p99_max).filter(c.latency_count > 0).label("p99"))
        .where(c.instance_id.in_(instance_ids), c.ts >= first)
        .group_by(c.instance_id, start))


def _applications(session: Session, meta, first: datetime, step_s: int) -> list[dict]:
    """Per deployment: [t, requests/s, mean latency µs or None, highest p99 µs or None] per step of its entry
    primaries (the DAG nodes no edge leads to), as the live channel's throughput and latency."""
    entries = {dep: app.entries for dep, app in meta.apps.items()}  # each derived once, not per instance
    entry = {iid: inst.deployment_id for iid, inst in meta.instances.items()
             if inst.role == "primary" and inst.dag_node in entries[inst.deployment_id]}
    steps: dict[str, dict[int, list]] = {dep: {} for dep in meta.apps}
    if entry:
        for r in _instance_steps(session, list(entry), first, step_s):
            step = steps[entry[r.instance_id]].setdefault(_end_ms(r.start, r.span), [0, 0, 0.0, None, r.span])
            step[0] += r.requests
            step[1] += r.latency_count
            step[2] += r.latency_us_sum
            if r.p99 is not None:
                step[3] = max(step[3] or 0.0, r.p99)
    return [dict(deployment_id=dep, application=meta.apps[dep].application,
                 points=[[t, s[0] / s[4], _mean(s[2], s[1]), s[3]] for t, s in sorted(by_t.items())])
            for dep, by_t in steps.items()]
