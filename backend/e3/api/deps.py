"""Typed dependencies: a database session per request and the authenticated actor with a scope."""

from collections.abc import AsyncIterator
from typing import Annotated

import anyio.to_thread
from fastapi import Depends, Query, Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from e3.api.verified_tokens import verified_tokens
from e3.core.db import request_session_scope, session_scope
from e3.core.security import Actor
from e3.schemas.common import INT8_MAX, PageParams
from e3.services.tokens import authorize_bearer


async def get_session() -> AsyncIterator[Session]:
    """Committed when the route returns, rolled back on any error: nothing half-written.

    async: making the session does no I/O (it connects when first used), so it is made on the event loop, and
    only the commit (or rollback) and close take a trip through the thread pool, one instead of two."""
    scope = request_session_scope()
    session = scope.__enter__()
    try:
        yield session
    except BaseException as exc:
        await _finish(scope, type(exc), exc, exc.__traceback__)  # rolls back
        raise
    await _finish(scope, None, None, None)  # commits


async def _finish(scope, *exc_info) -> None:
    """Leave the session's scope in a thread outside the shared thread limit (as FastAPI leaves a blocking
    dependency's): the commit that gives a connection back never waits for a thread. FastAPI shields a
    dependency's exit from cancellation, so a client gone meanwhile does not skip it."""
    await anyio.to_thread.run_sync(scope.__exit__, *exc_info, limiter=anyio.CapacityLimiter(1))


# scope="function": the commit runs when the route returns, before the response is sent. With FastAPI's default
# ("request") it ran after: a client could be answered 201 and not find what it created in its next request
# (seen in the e2e run: POST /applications 201, then POST /deployments 422 "no application named ..."), or be
# answered success for a commit that then failed.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]


def _actor(request: Request, session: Session, scope: str) -> Actor:
    authorization = request.headers.get("authorization")
    actor = authorize_bearer(session, scope, authorization=authorization,
                             how_to_send="send 'Authorization: Bearer <token>' (see `e3 token create`)")
    verified_tokens.remember(authorization, actor)
    request.state.actor = actor
    # Ends the token check's transaction: a refreshed last_used_at (services.tokens.authenticate) is not
    # row-locked while the route works, so concurrent requests with the same token never wait for each other.
    session.commit()
    return actor


def require(scope: str):
    """A dependency that yields the request's actor if its token grants `scope`, else 401/403."""

    async def dependency(request: Request, session: SessionDep) -> Actor:
        # A token verified a moment ago (api/verified_tokens.py) is answered on the event loop: no query, no
        # trip through the thread pool. Otherwise, or when it lacks the scope (the check's 403 says so), the
        # full check, blocking, in the thread pool.
        actor = verified_tokens.recall(request.headers.get("authorization"))
        if actor is None or not actor.can(scope):
            return await run_in_threadpool(_actor, request, session, scope)
        request.state.actor = actor
        return actor

    return dependency


def authorize(request: Request, scope: str) -> Actor:
    """`require` for a long-lived response (a stream): checks the token in a session of its own, so no
    database connection is held while the response runs. Blocking."""
    with session_scope() as session:
        return _actor(request, session, scope)


ReadDep = Annotated[Actor, Depends(require("read"))]
WriteDep = Annotated[Actor, Depends(require("write"))]
DeployDep = Annotated[Actor, Depends(require("deploy"))]
AdminDep = Annotated[Actor, Depends(require("admin"))]


async def page_params(limit: Annotated[int, Query(ge=1, le=1000, description="Items per page")] = 50,
                      offset: Annotated[int, Query(ge=0, le=INT8_MAX, description="Items to skip")] = 0) -> PageParams:
    # async: pure, so it takes no trip through the thread pool
    return PageParams(limit=limit, offset=offset)


PageDep = Annotated[PageParams, Depends(page_params)]


async def request_body(request: Request) -> bytes:
    """The raw body, read on the event loop, so that the route using it can be a plain `def` (run in the thread
    pool, as every route using the database is: docs/architecture.md, "The API and its database")."""
    return await request.body()


BodyDep = Annotated[bytes, Depends(request_body)]
