"""Liveness and readiness probes (no token needed).

Readiness names the dependency that is down and says so in words of its own: what an exception says (a
database's host, user or path, a driver's internals) goes to the API's log, not to whoever asks, since the
probes are open to anyone who reaches the port.
"""

import logging

import redis
from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from e3.core.config import get_settings
from e3.core.db import get_engine
from e3.core.schema import current_revision, head_revision

log = logging.getLogger(__name__)
router = APIRouter(tags=["health"])


class NotReady(Exception):
    """A check's own finding, said for the operator (shown in the answer as it is)."""


@router.get("/healthz", operation_id="healthz")
def healthz() -> dict:
    """The process is alive."""
    return {"status": "ok"}


def _check(fn, down: str) -> dict:
    try:
        detail = fn()
        return {"ok": True, "detail": detail}
    except NotReady as exc:
        return {"ok": False, "detail": str(exc)}
    except Exception:  # a probe reports every failure, it never raises
        log.warning("readiness check failed: %s", down, exc_info=True)
        return {"ok": False, "detail": f"{down} (the cause is in the API's log)"}


def _postgres() -> str:
    with get_engine().connect() as conn:
        return conn.execute(text("SHOW server_version")).scalar()


def _redis() -> str:
    client = redis.Redis.from_url(get_settings().redis_url, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
        return "PONG"
    finally:
        client.close()


def _migrations() -> str:
    current, head = current_revision(get_engine()), head_revision()
    if current != head:
        raise NotReady(f"database at {current}, code expects {head}; run `e3 migrate`")
    return f"at head {head}"


@router.get("/readyz", operation_id="readyz")
def readyz() -> JSONResponse:
    """Postgres and Redis reachable and the schema at the latest migration."""
    checks = {"postgres": _check(_postgres, "PostgreSQL is not reachable"),
              "redis": _check(_redis, "Redis is not reachable"),
              "migrations": _check(_migrations, "the schema version could not be read")}
    ready = all(c["ok"] for c in checks.values())
    return JSONResponse({"status": "ready" if ready else "not_ready", "checks": checks},
                        status_code=200 if ready else 503)
