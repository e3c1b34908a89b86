"""GET /metrics: Prometheus' exposition format, the controller's families and the API's own (docs/energy.md,
"Prometheus metrics"). It needs a `read` token, as telemetry does (docs/security.md, "Web-facing hardening").

A client that accepts gzip (Prometheus does) gets the controller's part as the controller compressed it,
joined to the API's (e3.metrics.gzip_join); any other gets plain text. With several controllers
(E3_CONTROLLERS > 1) their parts are merged first (e3.metrics.merge), and that text compressed at the scrape."""

import logging
import time
from functools import cache

import redis
from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

from e3.api import http_metrics
from e3.api.deps import ReadDep
from e3.core.config import get_settings
from e3.core.errors import ServiceUnavailable
from e3.metrics import CONTROLLERS_KEY, controller_key
from e3.metrics.gzip_join import DeflatePart, deflate_part, gzip_joined, inflate
from e3.metrics.merge import MalformedExposition, merge_expositions

log = logging.getLogger(__name__)
router = APIRouter(tags=["metrics"])
_NOTHING = deflate_part(b"")  # no controller keeps its figures in Redis (none runs, or it stopped)


@cache
def _redis(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


def accepts_gzip(accept_encoding: str) -> bool:
    for item in accept_encoding.split(","):
        coding, _, params = item.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            return params.replace(" ", "").lower() not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def _controller_parts(store: redis.Redis) -> list[tuple[str, DeflatePart]]:
    """The families of each controller whose part has not expired, with its name, in the order of their names."""
    names = sorted(n.decode() for n in store.zrangebyscore(CONTROLLERS_KEY, round(time.time() * 1000), "+inf"))
    with store.pipeline(transaction=False) as pipe:
        for name in names:
            pipe.hmget(controller_key(name), DeflatePart.FIELDS)
        stored = pipe.execute()
    return [(name, part) for name, values in zip(names, stored)
            if (part := DeflatePart.from_fields(values)) is not None]


def _merged(parts: list[tuple[str, DeflatePart]]) -> DeflatePart:
    """Several controllers' families as one part; a part that is not exposition text fails the scrape, naming
    its controller (dropping it would read as its nodes gone)."""
    try:
        return deflate_part(merge_expositions([inflate(p).decode(errors="replace") for _, p in parts]).encode())
    except MalformedExposition as exc:
        name = parts[exc.index][0]
        log.error("/metrics: controller %s's figures in Redis are not exposition text: %s", name, exc)
        raise ServiceUnavailable(f"controller {name}'s figures in Redis cannot be read ({exc}); the scrape "
                                 "fails rather than leave its nodes out") from None


@router.get("/metrics", response_class=Response,
            responses={200: {"content": {CONTENT_TYPE_PLAIN_0_0_4: {}}, "description": "The exposition text"}})
def get_metrics(request: Request, _: ReadDep) -> Response:
    """Prometheus metrics: node and instance energy, requests, heartbeats, placement and HTTP durations."""
    try:
        parts = _controller_parts(_redis(get_settings().redis_url))
    except redis.RedisError:
        # a scrape without the controller's half would read as its nodes gone: failing it shows up as `up` 0
        log.warning("/metrics: reading the controller's families from Redis failed", exc_info=True)
        raise ServiceUnavailable("Redis is not reachable: the controller's figures cannot be read") from None
    if len(parts) > 1:  # several controllers: one family each, their samples together (merge_expositions)
        controller = _merged(parts)
    else:
        controller = parts[0][1] if parts else _NOTHING
    own = http_metrics.render()
    headers = {"Vary": "Accept-Encoding"}
    if accepts_gzip(request.headers.get("accept-encoding", "")):
        return Response(gzip_joined(controller, own), media_type=CONTENT_TYPE_PLAIN_0_0_4,
                        headers=headers | {"Content-Encoding": "gzip"})
    return Response(inflate(controller) + own, media_type=CONTENT_TYPE_PLAIN_0_0_4, headers=headers)
