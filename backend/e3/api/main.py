"""Wires the application: middleware, error handlers, routers, the built UI at `/`."""

import multiprocessing
import os
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles

import e3
from e3.api.admission import Admission, size_thread_pool
from e3.api.docs import install_docs
from e3.api.errors import install_error_handlers
from e3.api.http_metrics import HttpDurations
from e3.api.method_answers import install_method_answers
from e3.api.middleware import BodyGuard, NulGuard
from e3.api.openapi import install_openapi
from e3.api.routers import (applications, audit, clusters, deployments, events, health, jobs, live, local, me,
                            migrations, nodes, orchestrator, placements, templates, tokens)
from e3.api.routers import cost_efficiency, energy_history, plans
from e3.api.routers import metrics
from e3.api.security_headers import SecurityHeaders
from e3.core.config import get_settings
from e3.core.processes import die_with_parent
from e3.schemas.common import ErrorBody

API_PREFIX = "/api/v1"
ERROR_RESPONSES = {code: {"model": ErrorBody} for code in (400, 401, 403, 404, 409, 412, 413, 415, 422, 503)}

UI_MISSING = """<!doctype html><title>E3</title><h1>E3 control plane</h1>
<p>The API is up (<a href="/docs">/docs</a>), but the UI is not built: run <code>make up</code>.</p>"""


def _operation_id(route: APIRoute) -> str:
    return route.name  # route functions are named verb_noun: stable, readable client method names


def frontend_dist() -> Path:
    configured = get_settings().frontend_dist
    return configured or Path(e3.__file__).resolve().parents[2] / "frontend" / "dist"


@asynccontextmanager
async def _lifespan(app: FastAPI):
    size_thread_pool()
    parent = multiprocessing.parent_process()
    if parent is not None:  # one of E3_API_WORKERS processes: none outlives `e3 api`
        die_with_parent()
        if os.getppid() != parent.pid:  # it died while this one started
            raise RuntimeError("`e3 api` exited while its worker process started")
    yield


def create_app() -> FastAPI:
    app = FastAPI(title="E3 control plane", version=e3.__version__, generate_unique_id_function=_operation_id,
                  description="Microservice DAGs on SmartNIC-accelerated servers: clusters, applications, "
                              "deployments and placement. Authenticate with `Authorization: Bearer <token>`.",
                  docs_url=None, redoc_url=None,  # FastAPI's own docs pages load their files from a CDN
                  lifespan=_lifespan)
    install_docs(app)
    install_openapi(app)
    app.add_middleware(BodyGuard)
    app.add_middleware(NulGuard)
    app.add_middleware(Admission)  # a refusal costs nothing else...
    app.add_middleware(SecurityHeaders)  # ...and every answer (refusals too) carries the headers
    app.add_middleware(HttpDurations, prefixes=(API_PREFIX,))  # outermost: a refusal's time is counted too
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(metrics.router,  # at /metrics, where Prometheus looks by default
                       responses={code: ERROR_RESPONSES[code] for code in (401, 403, 503)})
    # Each resource's router straight on the app, not under one /api/v1 router: a request is matched against
    # the routes of each level it passes, twice (FastAPI's routing: found, then dispatched); the extra level
    # cost about a tenth of a cheap read's CPU (docs/reliability.md, "API under concurrency and load").
    for module in (clusters, live, nodes, applications, templates, deployments, placements, jobs, migrations,
                   events, orchestrator, tokens, audit, me, local, cost_efficiency, energy_history, plans):
        app.include_router(module.router, prefix=API_PREFIX, responses=ERROR_RESPONSES)
    install_method_answers(app, API_PREFIX)
    dist = frontend_dist()
    if (dist / "index.html").is_file():
        app.mount("/", StaticFiles(directory=dist, html=True), name="ui")
    else:
        @app.get("/", include_in_schema=False)
        def ui_missing() -> HTMLResponse:
            return HTMLResponse(UI_MISSING)
    return app


app = create_app()
