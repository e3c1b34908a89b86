"""The event log: detections, decisions, migration steps, node and job state changes."""

import asyncio
import json
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import StreamingResponse

from e3.api.deps import ReadDep, SessionDep, authorize
from e3.api.stream_revocation import REVOKED_MESSAGE, ended_on_revocation
from e3.core.config import get_settings
from e3.core.db import in_session
from e3.schemas.common import INT8_MAX
from e3.schemas.migration import EventsPublic
from e3.services import events
from e3.live import event_feed

router = APIRouter(prefix="/events", tags=["events"])
SinceQuery = Annotated[int | None, Query(ge=0, le=INT8_MAX, description="Only events with a larger id (0, the "
                                                                        "default: from the start); wins over `last`")]
LastQuery = Annotated[int | None, Query(ge=1, le=1000, description="Start with the newest this many matching "
                                                                   "events (oldest first); ignored with `since`")]
KindQuery = Annotated[str | None, Query(max_length=63, description="A kind, or a prefix ending in '.' "
                                                                   "(e.g. migration.)")]
DeploymentQuery = Annotated[UUID | None, Query(description="Only this deployment's events and those about its "
                                                          "instances (their agents' answers, migrations, failovers)")]
ApplicationQuery = Annotated[str | None, Query(max_length=63, description="Only events about this application's "
                                                                          "deployments, instances and migrations, "
                                                                          "and about nodes where it had instances")]


@router.get("", response_model=EventsPublic)
def list_events(session: SessionDep, actor: ReadDep, since: SinceQuery = None, last: LastQuery = None,
                limit: Annotated[int, Query(ge=1, le=1000, description="At most this many (not with `last`)")] = 100,
                kind: KindQuery = None, cluster: str | None = None, subject: str | None = None,
                application: ApplicationQuery = None, deployment: DeploymentQuery = None) -> dict:
    """Events after `since` (or the newest `last`), oldest first; poll with the returned `next_since`."""
    items = events.list_events(session, since=since or 0, limit=limit, last=None if since is not None else last,
                               kind=kind, cluster=cluster, subject=subject, application=application,
                               deployment=deployment)
    return dict(items=items, next_since=items[-1]["id"] if items else since or 0)


def _sse(items: list[dict]) -> bytes:
    if not items:
        return b": keep-alive\n\n"
    return "".join(f"id: {e['id']}\nevent: {e['kind']}\ndata: {json.dumps(e, default=str)}\n\n"
                   for e in items).encode()


@router.get("/stream", response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}},
                             "description": "Server-sent events, one per event (`id`, `event`: its kind, `data`: "
                                            "the event as JSON), and a comment line every 15 s"}})
async def stream_events(request: Request, since: SinceQuery = None, last: LastQuery = None, kind: KindQuery = None,
                        cluster: str | None = None, subject: str | None = None, application: ApplicationQuery = None,
                        deployment: DeploymentQuery = None,
                        last_event_id: Annotated[int | None, Header(ge=0, le=INT8_MAX,
                                                                    description="Resume after this id (wins over "
                                                                                "since and last)")] = None):
    """Events as they are stored, pushed as server-sent events: first those after `since` (or the
    `Last-Event-ID` a reconnecting client sends; or the newest `last`), then each new one within
    milliseconds of its commit."""
    actor = await asyncio.to_thread(authorize, request, "read")
    start = last_event_id if last_event_id is not None else since
    filters = dict(kind=kind, cluster=cluster, subject=subject, application=application, deployment=deployment)
    backlog: list[dict] = []
    if start is None and last is not None:  # a resume goes on from its cursor; only a fresh stream starts with last
        backlog = await asyncio.to_thread(in_session, events.list_events, last=last, **filters)
        start = backlog[-1]["id"] if backlog else 0
    elif cluster:  # an unknown cluster is a 422 now, not a broken stream later
        await asyncio.to_thread(in_session, events.cluster_id_named, cluster)

    async def body():
        if backlog:
            yield _sse(backlog)
        async for items in event_feed.follow(get_settings().database_url, start or 0, **filters):
            yield _sse(items)

    return StreamingResponse(ended_on_revocation(body(), actor, f": {REVOKED_MESSAGE}\n\n".encode()),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
