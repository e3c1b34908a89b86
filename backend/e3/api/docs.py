"""The API docs pages, /docs (Swagger UI) and /redoc (ReDoc), with every script, style and icon served by E3.

FastAPI's own pages load them from a CDN, and E3 runs in racks without internet. The files come from the pinned
fastapi-standalone-docs wheel: Swagger UI and ReDoc as published on npm, except that ReDoc's footer logo is read
from the page's own path (`/redoc/logo-mini.svg`) instead of Redocly's CDN.
"""

from pathlib import Path

import fastapi_standalone_docs
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS_URL = "/docs"
REDOC_URL = "/redoc"
OAUTH2_REDIRECT_URL = f"{DOCS_URL}/oauth2-redirect"
FAVICON_URL = f"{DOCS_URL}/fastapi/favicon.png"

ASSETS = Path(fastapi_standalone_docs.__file__).parent / "static"


def _root_path(request: Request) -> str:
    """The prefix a proxy serves the app under, as FastAPI's own docs pages honour it."""
    return request.scope.get("root_path", "").rstrip("/")


def install_docs(app: FastAPI) -> None:
    """Serve the docs pages and their files; `app` is made with docs_url=None and redoc_url=None, and this is
    called before anything is mounted at `/`, which would otherwise shadow these paths."""
    assert app.openapi_url, "the docs pages show the OpenAPI document"
    openapi_url = app.openapi_url

    async def swagger_ui(request: Request) -> HTMLResponse:
        root = _root_path(request)
        return get_swagger_ui_html(openapi_url=root + openapi_url, title=f"{app.title} - Swagger UI",
                                   swagger_js_url=f"{root}{DOCS_URL}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{root}{DOCS_URL}/swagger-ui.css",
                                   swagger_favicon_url=root + FAVICON_URL,
                                   oauth2_redirect_url=root + OAUTH2_REDIRECT_URL)

    async def swagger_ui_oauth2_redirect(request: Request) -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    async def redoc(request: Request) -> HTMLResponse:
        root = _root_path(request)
        return get_redoc_html(openapi_url=root + openapi_url, title=f"{app.title} - ReDoc",
                              redoc_js_url=f"{root}{REDOC_URL}/redoc.standalone.js",
                              redoc_favicon_url=root + FAVICON_URL, with_google_fonts=False)

    # Pages before the folders mounted below them, so that a folder never answers for a page.
    app.add_route(DOCS_URL, swagger_ui, include_in_schema=False)
    app.add_route(OAUTH2_REDIRECT_URL, swagger_ui_oauth2_redirect, include_in_schema=False)
    app.add_route(REDOC_URL, redoc, include_in_schema=False)
    app.mount(f"{DOCS_URL}/fastapi", StaticFiles(directory=ASSETS / "fastapi"), name="docs-favicon")
    app.mount(DOCS_URL, StaticFiles(directory=ASSETS / "swagger"), name="docs-swagger-ui")
    app.mount(REDOC_URL, StaticFiles(directory=ASSETS / "redoc"), name="docs-redoc")
