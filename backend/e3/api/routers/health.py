"""Liveness and readiness probes (no token needed)."""

import redis
from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from e3.core.config import get_settings
from e3.core.db import get_engine
from e3.core.schema import current_revision, head_revision

router = APIRouter(tags=["health"])


@router.get("/healthz", operation_id="healthz")
def healthz() -> dict:
    """The process is alive."""
    return {"status": "ok"}


def _check(fn) -> dict:
    try:
        detail = fn()
        return {"ok": True, "detail": detail}
    except Exception as exc:  # a probe reports every failure, it never raises
        return {"ok": False, "detail": f"{type(exc).__name__}: {exc}"[:300]}


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
        raise RuntimeError(f"database at {current}, code expects {head}; run `e3 migrate`")
    return f"at head {head}"


@router.get("/readyz", operation_id="readyz")
def readyz() -> JSONResponse:
    """Postgres and Redis reachable and the schema at the latest migration."""
    checks = {"postgres": _check(_postgres), "redis": _check(_redis), "migrations": _check(_migrations)}
    ready = all(c["ok"] for c in checks.values())
    return JSONResponse({"status": "ready" if ready else "not_ready", "checks": checks},
                        status_code=200 if ready else 503)
