"""The event log: detections, decisions, migration steps, node and job state changes."""

from typing import Annotated

from fastapi import APIRouter, Query

from e3.api.deps import ReadDep, SessionDep
from e3.schemas.migration import EventsPublic
from e3.services import events

router = APIRouter(prefix="/events", tags=["events"])


@router.get("", response_model=EventsPublic)
def list_events(session: SessionDep, actor: ReadDep,
                since: Annotated[int, Query(ge=0, description="Only events with a larger id (0: from the start)")] = 0,
                limit: Annotated[int, Query(ge=1, le=1000)] = 100,
                kind: Annotated[str | None, Query(max_length=63, description="A kind, or a prefix ending "
                                                                               "in '.' (e.g. migration.)")] = None,
                cluster: str | None = None, subject: str | None = None) -> dict:
    """Events after `since`, oldest first; poll with the returned `next_since`."""
    items = events.list_events(session, since=since, limit=limit, kind=kind, cluster=cluster, subject=subject)
    return dict(items=items, next_since=items[-1]["id"] if items else since)
