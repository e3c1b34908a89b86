"""The API's own Prometheus families: HTTP request durations (an ASGI middleware), and the database's
placement and migration figures (e3.services.metrics), rendered with prometheus_client.

Labels of `e3_http_request_duration_seconds`: method (the standard ones, else `other`), route (the matched
route's template, e.g. /api/v1/clusters/{name}; `unmatched` for a 404 or a request refused before routing,
never the raw path), status (its class: 2xx ... 5xx). So at most 8 methods x (routes + 1) x 5 series.
Under `e3 api` the durations are kept in prometheus_client's multiprocess mode (metrics_directory.py).
"""

import os
import time

from prometheus_client import CollectorRegistry, Histogram, disable_created_metrics, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from e3.api.metrics_directory import ENV
from e3.core.db import session_scope
from e3.services.metrics import CachedFigures, MIGRATION_OUTCOMES

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED = "unmatched"
MULTIPROCESS = bool(os.environ.get(ENV))
disable_created_metrics()  # a `_created` series per labelled child doubles the count and says little here

# One process alone (tests in process): a registry of its own. Several: each writes to the shared folder and a
# scrape reads them all (registering the histogram in a registry too would count this process twice).
_own = None if MULTIPROCESS else CollectorRegistry()
HTTP_DURATION = Histogram("e3_http_request_duration_seconds",
                          "Time from a request's arrival to its answer's last byte, seconds.",
                          ("method", "route", "status"), registry=_own)


def route_template(scope, prefixes: tuple[str, ...] = ()) -> str:
    """The matched route's template. A router included under a prefix matches with its own route objects,
    whose paths lack the prefix: the prefix the request came under is put back."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if path is None:
        return UNMATCHED
    for prefix in prefixes:
        if scope["path"].startswith(prefix + "/") and not path.startswith(prefix + "/"):
            return prefix + path
    return path or "/"  # the UI's mount at the root


class HttpDurations:
    """Times every HTTP request (WebSockets are not requests with a duration), by method, route and status.
    `prefixes`: those routers are included under (main.API_PREFIX)."""

    def __init__(self, app, prefixes: tuple[str, ...] = ()):
        self.app, self.prefixes = app, prefixes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        status = 500  # an exception before the answer started is answered 500 by the server

        async def sending(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            method = scope["method"] if scope["method"] in METHODS else "other"
            HTTP_DURATION.labels(method, route_template(scope, self.prefixes), f"{status // 100}xx").observe(
                time.perf_counter() - start)


class DatabaseCollector:
    """e3_placement_duration_seconds and e3_migrations_total, from e3.services.metrics (cached there)."""

    def __init__(self):
        self.figures = CachedFigures()

    def collect(self):
        figures = self.figures.get(session_scope)
        placement = HistogramMetricFamily("e3_placement_duration_seconds",
                                          "Placement runtime of each succeeded deploy or rollout job, seconds, by "
                                          "algorithm.", labels=["algorithm"])
        for h in figures.placements:
            placement.add_metric([h.algorithm], [(_bound(b), n) for b, n in h.buckets], h.sum_s)
        yield placement
        migrations = CounterMetricFamily("e3_migrations", "Finished instance migrations, by reason and outcome.",
                                         labels=["reason", "outcome"])
        for (reason, outcome), n in sorted(figures.migrations.items()):
            if outcome in MIGRATION_OUTCOMES:
                migrations.add_metric([reason, outcome], n)
        yield migrations


def _bound(seconds: float) -> str:
    return "+Inf" if seconds == float("inf") else repr(seconds)


DATABASE = DatabaseCollector()
_database = CollectorRegistry()
_database.register(DATABASE)


def render() -> bytes:
    """The API's families (this process's, or every process's under `e3 api`), exposition format 0.0.4."""
    if MULTIPROCESS:
        requests = CollectorRegistry()
        MultiProcessCollector(requests)
    else:
        requests = _own
    return generate_latest(requests) + generate_latest(_database)
