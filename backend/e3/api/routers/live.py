"""A cluster's live state pushed to browsers: WebSocket, with server-sent events and polling as fallbacks.

The protocol is in docs/live.md. A browser cannot set headers on a WebSocket, so the token comes as a
subprotocol: `new WebSocket(url, ["e3.live.v1", "e3.bearer." + token])` (a token is `e3_` and URL-safe
base64, valid in that header). Unlike a query parameter, it lands in no access log or proxy log and no
browser history; unlike a first message, the socket is authorised before anything is sent. An
`Authorization: Bearer` header is accepted too (non-browser clients). The socket is accepted, then closed
with a code a browser can read: 4401 (no or bad token), 4403 (no `read` scope), 4404 (no such cluster). An open
socket is closed with 4401, and a server-sent event stream ended, within a second of its token's revocation or
expiry (e3/api/stream_revocation.py).
"""

import asyncio
import json
import logging
import time
from typing import Annotated

from fastapi import APIRouter, Query, Request, WebSocket
from fastapi.responses import StreamingResponse
from sqlalchemy.exc import OperationalError
from starlette.websockets import WebSocketDisconnect

from e3.api.deps import authorize
from e3.api.stream_revocation import REVOKED_MESSAGE, ended_on_revocation, until_revoked
from e3.core.config import get_settings
from e3.core.db import in_session, session_scope
from e3.core.db_errors import QUERY_CANCELED
from e3.core.errors import E3Error, ServiceUnavailable
from e3.core.security import Actor
from e3.schemas.live import LiveHistory, LiveMessage
from e3.live import recent_history
from e3.live.hub import LiveHub, hub
from e3.services.tokens import authorize_bearer

log = logging.getLogger(__name__)
router = APIRouter(prefix="/clusters", tags=["live"])
PROTOCOL = "e3.live.v1"
BEARER_PROTOCOL = "e3.bearer."
# Each kind of refusal (core.errors) as a close code a browser can read; any other kind closes with 4400.
CLOSE_CODES = {"unauthenticated": 4401, "forbidden": 4403, "not_found": 4404}


def _hub() -> LiveHub:
    return hub(get_settings().redis_url)


def _dumps(message: dict) -> str:
    return json.dumps(message, separators=(",", ":"))


def _subprotocol_token(websocket: WebSocket) -> str | None:
    for offered in websocket.scope.get("subprotocols", []):
        if offered.startswith(BEARER_PROTOCOL) and len(offered) > len(BEARER_PROTOCOL):
            return offered[len(BEARER_PROTOCOL):]
    return None


def _check_socket(websocket: WebSocket) -> Actor:
    with session_scope() as session:
        return authorize_bearer(session, "read", token=_subprotocol_token(websocket),
                                authorization=websocket.headers.get("authorization"),
                                how_to_send=f"offer the subprotocol '{BEARER_PROTOCOL}<token>' beside '{PROTOCOL}'")


@router.websocket("/{cluster}/live")
async def live_socket(websocket: WebSocket, cluster: str):
    """The cluster's live state: a snapshot, then updates (at most 10 a second, at least 4)."""
    offered = websocket.scope.get("subprotocols", [])
    await websocket.accept(subprotocol=PROTOCOL if PROTOCOL in offered else None)
    hub = _hub()
    try:
        actor = await asyncio.to_thread(_check_socket, websocket)
        sub = await hub.subscribe(cluster)
    except E3Error as exc:
        await websocket.close(CLOSE_CODES.get(exc.kind, 4400), reason=exc.message[:120])
        return

    async def send():
        async for message in sub.messages():
            await websocket.send_text(_dumps(message))

    async def receive():  # nothing is expected from the client; this notices it leave
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass

    revoked = asyncio.create_task(until_revoked(actor))
    tasks = [asyncio.create_task(send()), asyncio.create_task(receive()), revoked]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if revoked in done:
            await websocket.close(CLOSE_CODES["unauthenticated"], reason=REVOKED_MESSAGE)
        for task in done:
            if not task.cancelled() and task.exception() is not None and not isinstance(
                    task.exception(), (WebSocketDisconnect, RuntimeError, OSError)):
                log.error("live socket for cluster '%s' failed", cluster, exc_info=task.exception())
    finally:
        for task in tasks:
            task.cancel()
        hub.unsubscribe(sub)


@router.get("/{cluster}/live/stream", response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}},
                             "description": "Server-sent events: `event` the message type (snapshot | update), "
                                            "`data` a LiveMessage as JSON"}})
async def stream_live(request: Request, cluster: str):
    """The WebSocket's feed as server-sent events, for where a proxy blocks WebSockets: a snapshot, then
    updates (at most 10 a second, at least 4). Authenticate with the Authorization header."""
    actor = await asyncio.to_thread(authorize, request, "read")
    hub = _hub()
    sub = await hub.subscribe(cluster)

    async def body():
        try:
            async for message in sub.messages():
                yield f"event: {message['type']}\ndata: {_dumps(message)}\n\n".encode()
        finally:
            hub.unsubscribe(sub)

    return StreamingResponse(ended_on_revocation(body(), actor, f": {REVOKED_MESSAGE}\n\n".encode()),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.get("/{cluster}/live/snapshot", response_model=LiveMessage, response_model_exclude_none=False)
async def get_live_snapshot(request: Request, cluster: str) -> dict:
    """The live channel's snapshot once (the last fallback: poll it about once a second)."""
    await asyncio.to_thread(authorize, request, "read")
    hub = _hub()
    sub = await hub.subscribe(cluster)
    try:
        return sub.next_message(time.time())
    finally:
        hub.unsubscribe(sub)


@router.get("/{cluster}/history", response_model=LiveHistory)
async def get_live_history(
        request: Request, cluster: str,
        minutes: Annotated[int, Query(ge=1, le=recent_history.MAX_MINUTES,
                                      description="How far back, in minutes (1-10080, 7 days). The answer's "
                                                  "step is the finest of 1 s to 1 h giving at most 720 steps: "
                                                  "1 s up to 12 minutes, 5 s for 1 h, 120 s for 24 h, 900 s for "
                                                  "7 days")] = 5) -> dict:
    """The last minutes (up to 7 days) of the live channel's figures from the stored 1 s rollups, merged into
    steps of at most 720 over the window (per node: queue, CPU, watts with their source; per application:
    throughput and latency at its entry; the cluster's totals), so that a dashboard opens showing them and its
    time-range picker can show longer windows; the live channel goes on from there."""
    await asyncio.to_thread(authorize, request, "read")
    try:
        return await asyncio.to_thread(in_session, recent_history.recent, cluster, minutes)
    except OperationalError as exc:
        if getattr(exc.orig, "sqlstate", None) != QUERY_CANCELED:
            raise
        # Past the statement timeout: a retry would take as long, a shorter window would not.
        raise ServiceUnavailable(
            f"reading {minutes} minutes of cluster '{cluster}''s history took longer than the database's statement "
            "timeout (E3_DB_STATEMENT_TIMEOUT_MS); ask for fewer minutes", code="history_too_slow") from exc
