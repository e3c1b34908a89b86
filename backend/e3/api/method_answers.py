"""Answers for requests under the API prefix that no API route takes.

A method the path's routes do not declare is a 405 JSON error whose `Allow` lists the methods they do; OPTIONS is
answered 204 with that `Allow` (no CORS is configured: a browser's cross-origin preflight gets no
Access-Control-* header, so it fails, as it should); a path no API route matches is a 404 JSON error. Without
this, such requests fell through to the UI's static files mounted at `/` (405 `Allow: GET, HEAD`, or a plain
404), which said nothing true about the API.
"""

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Match, Route, get_route_path

from e3.core.errors import NotFound


# The methods an API route may declare; OPTIONS is answered here for every path.
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _allowed(request: Request, answers: BaseRoute) -> set[str]:
    """The methods the routes before `answers` (this catch-all) take at the request's path, asked of the routes
    themselves (`matches`), as the router would."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        if route is answers:
            break
        methods |= {m for m in METHODS if route.matches({**request.scope, "method": m})[0] == Match.FULL}
    return methods


def _answer(request: Request, answers: BaseRoute) -> Response:
    path = get_route_path(request.scope)
    methods = _allowed(request, answers)
    if not methods:
        raise NotFound(f"no API path {path} (the API's paths are listed at /docs)")
    allow = ", ".join(sorted(methods | {"OPTIONS"}))
    if request.method == "OPTIONS":
        return Response(status_code=204, headers={"Allow": allow})
    message = f"{request.method} is not allowed on {path}; it allows {allow}"
    return JSONResponse({"code": "method_not_allowed", "message": message,
                         "errors": [{"field": "method", "message": message, "code": "method_not_allowed"}]},
                        status_code=405, headers={"Allow": allow})


class _UnroutedAnswers:
    route: BaseRoute

    async def __call__(self, scope, receive, send) -> None:
        await _answer(Request(scope, receive), self.route)(scope, receive, send)


def install_method_answers(app: FastAPI, prefix: str) -> None:
    """Add the catch-all route under `prefix`; call it after the API's routes and before anything is mounted
    at `/`, so that it answers only what no API route takes, and before the UI's files would."""
    # An ASGI app as the endpoint (a function would be GET only): the route takes every method, those no route
    # declares included (PROPFIND, TRACE, ...).
    answers = _UnroutedAnswers()
    answers.route = Route(f"{prefix}/{{path:path}}", answers, include_in_schema=False)
    app.router.routes.append(answers.route)
