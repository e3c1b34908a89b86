"""Computing nodes by id: one node, and its telemetry (the heartbeats its agent sent: stored 1 s steps, and the
raw tail its controller holds)."""

import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request

from e3.api import controller_tail
from e3.api.deps import ReadDep, SessionDep
from e3.core.errors import FieldError, ValidationFailed
from e3.schemas.cluster import NodeTelemetry
from e3.services import leases, telemetry

router = APIRouter(prefix="/nodes", tags=["nodes"])


@router.get("/{node_id}/telemetry", response_model=NodeTelemetry)
def get_node_telemetry(
    node_id: uuid.UUID, session: SessionDep, actor: ReadDep, request: Request,
    since: Annotated[datetime | None, Query(description="Steps and heartbeats after this instant (ISO 8601 with a "
                                                        "time zone); default: the last minute")] = None,
    until: Annotated[datetime | None, Query(description="Steps and heartbeats up to this instant")] = None,
    limit: Annotated[int, Query(ge=1, le=5000, description="Steps per page (1-5000), and at most as many raw "
                                                          "heartbeats")] = 500,
) -> dict:
    """A node's telemetry in time order, stored as 1 s steps (queue, traffic, CPU, power with its source and
    energy, per-instance requests and latencies), and on the last page the raw heartbeats of the last seconds
    that its controller still holds (`tail`).

    Page on with `since=<next_since>` until `next_since` is null."""
    for field, value in (("since", since), ("until", until)):
        if value is not None and value.tzinfo is None:
            raise ValidationFailed([FieldError(field, "needs a time zone, e.g. 2026-11-21T10:00:00Z",
                                               "naive_datetime")], f"{field}: needs a time zone")
    page = telemetry.series(session, node_id, since, until, limit)
    if page["next_since"] is not None:
        return {**page, "tail": [], "tail_status": "not_requested"}
    tail = controller_tail.fetch(node_id, page["since"], until, limit, request.headers.get("authorization"),
                                 holder=leases.holder_address(session, node_id))
    return {**page, "tail": tail.items, "tail_status": tail.status, "tail_since": tail.holds_since,
            "tail_error": tail.detail}
