"""What /metrics reads from the database (docs/energy.md, "Prometheus metrics"): placement durations and
migrations, counted over the jobs and migrations tables at scrape time, so every API process answers the same
figures; and the clusters' names, which the controller's families carry.

Figures are kept `CACHE_S` per process: a scrape every second costs two grouped queries every few seconds.
A row deleted with its deployment or cluster leaves the counts: Prometheus reads the drop as a counter reset.
"""

import threading
import time
from dataclasses import dataclass

from sqlalchemy import Float, and_, func, select
from sqlalchemy.orm import Session

from e3.models import Cluster, Job, Migration

CACHE_S = 5.0
# placement runtimes from a millisecond (HCM on a small DAG) to the ILP's time cap (30 s by default) and beyond
PLACEMENT_BUCKETS_S = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0)
MIGRATION_OUTCOMES = ("succeeded", "rolled_back", "failed")  # finished migrations; one under way is not counted


@dataclass(frozen=True)
class PlacementHistogram:
    algorithm: str
    buckets: tuple[tuple[float, int], ...]  # (upper bound in seconds, cumulative count), +Inf last
    count: int
    sum_s: float


@dataclass(frozen=True)
class DatabaseFigures:
    placements: list[PlacementHistogram]
    migrations: dict[tuple[str, str], int]  # (reason, outcome) -> count


def cluster_names(session: Session) -> dict[str, str]:
    """Cluster id (as text) -> name."""
    return {str(cid): name for cid, name in session.execute(select(Cluster.id, Cluster.name))}


def placement_histograms(session: Session) -> list[PlacementHistogram]:
    """Each algorithm's placement runtimes, as jobs recorded them (`result.runtime_ms` of a succeeded deploy or
    rollout job), bucketed in the database: the rows are never sent over."""
    algorithm = Job.result["algorithm"].astext
    seconds = Job.result["runtime_ms"].astext.cast(Float) / 1000.0
    columns = [func.count().filter(seconds <= bound) for bound in PLACEMENT_BUCKETS_S]
    rows = session.execute(
        select(algorithm, func.count(), func.coalesce(func.sum(seconds), 0.0), *columns)
        .where(and_(Job.state == "succeeded", Job.result.has_key("runtime_ms"), Job.result.has_key("algorithm")))
        .group_by(algorithm).order_by(algorithm)).all()
    return [PlacementHistogram(name, tuple(zip(PLACEMENT_BUCKETS_S + (float("inf"),), (*counts, count))),
                               count, float(total))
            for name, count, total, *counts in rows]


def migration_counts(session: Session) -> dict[tuple[str, str], int]:
    rows = session.execute(select(Migration.reason, Migration.state, func.count())
                           .where(Migration.state.in_(MIGRATION_OUTCOMES))
                           .group_by(Migration.reason, Migration.state))
    return {(reason, outcome): n for reason, outcome, n in rows}


class CachedFigures:
    """The database figures, read again once they are `max_age_s` old (one reader at a time)."""

    def __init__(self, max_age_s: float = CACHE_S, clock=time.monotonic):
        self.max_age_s, self.clock = max_age_s, clock
        self._lock = threading.Lock()
        self._figures: DatabaseFigures | None = None
        self._read_at = float("-inf")

    def get(self, session_scope) -> DatabaseFigures:
        with self._lock:
            if self._figures is None or self.clock() - self._read_at >= self.max_age_s:
                with session_scope() as session:
                    self._figures = DatabaseFigures(placement_histograms(session), migration_counts(session))
                self._read_at = self.clock()
            return self._figures
