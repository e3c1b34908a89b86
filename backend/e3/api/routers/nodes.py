"""Computing nodes by id: one node, and its telemetry (the heartbeats its agent sent)."""

import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query

from e3.api.deps import ReadDep, SessionDep
from e3.core.errors import FieldError, ValidationFailed
from e3.schemas.cluster import NodeTelemetry
from e3.services import telemetry

router = APIRouter(prefix="/nodes", tags=["nodes"])


@router.get("/{node_id}/telemetry", response_model=NodeTelemetry)
def get_node_telemetry(
    node_id: uuid.UUID, session: SessionDep, actor: ReadDep,
    since: Annotated[datetime | None, Query(description="Heartbeats after this instant (ISO 8601 with a time "
                                                        "zone); default: the last minute")] = None,
    until: Annotated[datetime | None, Query(description="Heartbeats up to this instant")] = None,
    limit: Annotated[int, Query(ge=1, le=5000, description="Heartbeats per page (1-5000)")] = 500,
) -> dict:
    """A node's heartbeats in time order: queue, traffic, CPU, power with its source, per-instance requests.

    Page on with `since=<next_since>` until `next_since` is null."""
    for field, value in (("since", since), ("until", until)):
        if value is not None and value.tzinfo is None:
            raise ValidationFailed([FieldError(field, "needs a time zone, e.g. 2026-11-21T10:00:00Z",
                                               "naive_datetime")], f"{field}: needs a time zone")
    return telemetry.series(session, node_id, since, until, limit)
