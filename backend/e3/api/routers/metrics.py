"""GET /metrics: Prometheus' exposition format, the API's own families and the controller's (docs/energy.md,
"Prometheus metrics"). It needs a `read` token, as telemetry does (docs/security.md, "Web-facing hardening")."""

from functools import cache

import redis
from fastapi import APIRouter
from fastapi.responses import Response
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

from e3.api import http_metrics
from e3.api.deps import ReadDep
from e3.core.config import get_settings
from e3.metrics import CONTROLLER_KEY

router = APIRouter(tags=["metrics"])


@cache
def _redis(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


@router.get("/metrics", response_class=Response,
            responses={200: {"content": {CONTENT_TYPE_PLAIN_0_0_4: {}}, "description": "The exposition text"}})
def get_metrics(_: ReadDep) -> Response:
    """Prometheus metrics: node and instance energy, requests, heartbeats, placement and HTTP durations."""
    controller = _redis(get_settings().redis_url).get(CONTROLLER_KEY) or b""  # none while no controller runs
    return Response(http_metrics.render() + controller, media_type=CONTENT_TYPE_PLAIN_0_0_4)
