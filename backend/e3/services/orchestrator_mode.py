"""The orchestrator's mode at run time: what an operator sets through the API, what the controller follows.

The mode lives in Redis (`e3:orchestrator:mode`): the API writes it, the controller reads it about once
a second (`DataplaneOrchestrator.follow_mode`). Without it the controller's own setting holds
(E3_ORCHESTRATOR). Modes: `migrate` (act on detections), `observe` (detections and decisions are
events, nothing moves), `off` (heartbeats are not judged).
"""

import redis
from sqlalchemy.orm import Session

from e3.core.config import get_settings
from e3.core.errors import ServiceUnavailable
from e3.core.security import Actor
from e3.services import audit, events

MODES = ("migrate", "observe", "off")
MODE_KEY = "e3:orchestrator:mode"


def _client() -> redis.Redis:
    return redis.Redis.from_url(get_settings().redis_url, socket_timeout=2, socket_connect_timeout=2)


def get_mode() -> dict:
    """The mode in force: the one set at run time, else the configured default."""
    try:
        value = _client().get(MODE_KEY)
    except redis.RedisError as exc:
        raise ServiceUnavailable(f"Redis is unreachable: {exc}", code="redis_unavailable") from exc
    if value is None:
        return dict(mode=get_settings().orchestrator, source="default")
    return dict(mode=value.decode(), source="set")


def set_mode(session: Session, actor: Actor, mode: str) -> dict:
    """Set the mode (the controller follows within about a second); an audit entry and an event."""
    try:
        _client().set(MODE_KEY, mode)
    except redis.RedisError as exc:
        raise ServiceUnavailable(f"Redis is unreachable: {exc}", code="redis_unavailable") from exc
    audit.record(session, actor, "orchestrator.mode", "orchestrator", mode=mode)
    events.emit(session, "orchestrator.mode", "orchestrator", None, mode=mode, set_by=actor.name)
    return dict(mode=mode, source="set")
