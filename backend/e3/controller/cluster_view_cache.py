"""The orchestrator's cluster views, built once per change of placement instead of once per decision.

`orchestrator.decision.ClusterView` is meant to be built once and kept: its topology index is what makes a
decision O(log nodes). Reading it from Postgres (`services.cluster_views.cluster_view`) is what a decision
costs otherwise: 64 ms at 100 type2 servers and 720 ms at 1,000 on this machine under heartbeat load
(`e3 bench orchestrator --section real`), against 0.1 ms for `decide` itself.

A view younger than its fresh age is used as it is. An older one, still younger than its stale age, is used too,
and a rebuild starts in the background (one at a time per cluster). One older than that, an invalidated one, or none
is read first, on the caller's thread. The fresh age is `fresh_s`, or ten times the cluster's last read if longer,
so that refreshing never takes more than a tenth of a thread (and of the GIL the event loop needs): at 1,000 type2
servers under heartbeat load a read takes 1-2 s, and refreshing it every second took more of the controller's
samples than its event loop did, which delayed every detection waiting there (p50 0.3 s from detection to
decision; 0.1 s with reads ten times rarer). The stale age is `stale_s`, or twice the fresh age if longer. `warm`
keeps a cluster's view read before a decision needs it (the orchestrator calls it every second for the clusters
with a SmartNIC this controller runs, up), so that the first decision does not read it (1-2 s at 1,000 servers).

A decision that is acted on is written into the view it was made on (`ClusterView.begin_migration`, under the
view's lock, which also covers `decide`), so the next decision sees the instance migrating and the target's room
taken before a rebuild does. Out of date or not, a view only
proposes: the migration request checks again under the cluster's lock (`services.migration.records`), so a
decision made on an out-of-date view is refused there and never applied; the caller then invalidates the view.
"""

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from e3.core.db import in_session
from e3.orchestrator.decision import ClusterView

log = logging.getLogger(__name__)
READ_SHARE = 10  # a view is read again in the background no sooner than this many times its last read took


@dataclass
class CachedView:
    view: ClusterView
    built_at: float  # the clock's time when its read started
    lock: threading.Lock = field(default_factory=threading.Lock)  # decide + begin_migration, one at a time


class ClusterViewCache:
    def __init__(self, build: Callable[..., ClusterView], fresh_s: float = 1.0, stale_s: float = 10.0,
                 clock: Callable[[], float] = time.monotonic,
                 in_background: Callable[[Callable[[], None]], None] | None = None):
        if not 0 <= fresh_s <= stale_s:
            raise ValueError("the view's fresh age must be in 0..its stale age")
        self._build = build  # (session, cluster_id) -> ClusterView
        self.fresh_s, self.stale_s, self._clock = fresh_s, stale_s, clock
        self._in_background = in_background or _on_a_thread
        self._views: dict[uuid.UUID, CachedView] = {}
        # bumped by invalidate (one cluster's, or every cluster's): a read started before is not kept
        self._generation: dict[uuid.UUID, int] = {}
        self._all_generation = 0
        self._refreshing: set[uuid.UUID] = set()
        self._read_s: dict[uuid.UUID, float] = {}  # each cluster's last read, in seconds
        self._lock = threading.Lock()
        self.reads = 0  # views read from the database (on a caller's thread or in the background)

    def get(self, session, cluster_id: uuid.UUID) -> tuple[CachedView, float]:
        """The view to decide on and its age in seconds (0 when it was read for this call)."""
        return self.kept(cluster_id) or (self._read(session, cluster_id), 0.0)

    def fresh_age(self, cluster_id: uuid.UUID) -> float:
        """How old the cluster's view may get before it is read again in the background."""
        return max(self.fresh_s, READ_SHARE * self._read_s.get(cluster_id, 0.0))

    def stale_age(self, cluster_id: uuid.UUID) -> float:
        """How old it may get before a decision must read it first."""
        return max(self.stale_s, 2 * self.fresh_age(cluster_id))

    def kept(self, cluster_id: uuid.UUID) -> tuple[CachedView, float] | None:
        """The view kept, if one may be used, and its age (starting its refresh when it is no longer fresh);
        None when it must be read first. Never reads: safe on the event loop."""
        with self._lock:
            cached = self._views.get(cluster_id)
            age = None if cached is None else self._clock() - cached.built_at
            if cached is None or age >= self.stale_age(cluster_id):
                return None
            if age >= self.fresh_age(cluster_id):
                self._refresh_in_background(cluster_id)
            return cached, age

    def warm(self, cluster_ids) -> None:
        """Start reading, in the background, the view of each cluster that has none or whose view is no longer
        fresh. Never reads: safe on the event loop."""
        with self._lock:
            now = self._clock()
            for cluster_id in cluster_ids:
                cached = self._views.get(cluster_id)
                if cached is None or now - cached.built_at >= self.fresh_age(cluster_id):
                    self._refresh_in_background(cluster_id)

    def _refresh_in_background(self, cluster_id: uuid.UUID) -> None:  # under self._lock
        if cluster_id not in self._refreshing:
            self._refreshing.add(cluster_id)
            self._in_background(lambda: self._refresh(cluster_id))

    def invalidate(self, cluster_id: uuid.UUID | None = None) -> None:
        """Forget one cluster's view (None: every cluster's), and any read of it under way."""
        with self._lock:
            if cluster_id is None:
                self._views.clear()
                self._all_generation += 1
            else:
                self._views.pop(cluster_id, None)
                self._generation[cluster_id] = self._generation.get(cluster_id, 0) + 1

    def _read(self, session, cluster_id: uuid.UUID) -> CachedView:
        generation = lambda: (self._all_generation, self._generation.get(cluster_id, 0))  # noqa: E731
        with self._lock:
            before = generation()
        started = self._clock()
        cached = CachedView(self._build(session, cluster_id), started)
        with self._lock:
            self.reads += 1
            self._read_s[cluster_id] = self._clock() - started
            current = self._views.get(cluster_id)
            if generation() == before and (current is None or current.built_at < started):
                self._views[cluster_id] = cached
        return cached

    def _refresh(self, cluster_id: uuid.UUID) -> None:
        try:
            in_session(self._read, cluster_id)
        except Exception:  # the next decision reads it again (on its thread once the kept view is too old)
            log.exception("refreshing the orchestrator's view of cluster %s failed", cluster_id)
        finally:
            with self._lock:
                self._refreshing.discard(cluster_id)


def _on_a_thread(work: Callable[[], None]) -> None:
    threading.Thread(target=work, name="cluster-view-refresh", daemon=True).start()
