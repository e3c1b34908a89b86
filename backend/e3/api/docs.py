"""The API docs pages, /docs (Swagger UI) and /redoc (ReDoc), with every script, style and icon served by E3.

FastAPI's own pages load them from a CDN, and E3 runs in racks without internet. The files come from the pinned
fastapi-standalone-docs wheel: Swagger UI and ReDoc as published on npm, except that ReDoc's footer logo is read
from the page's own path (`/redoc/logo-mini.svg`) instead of Redocly's CDN.

The pages run no inline script, so they work under the Content-Security-Policy (e3/api/security_headers.py):
Swagger UI's set-up script is a file of its own (`/docs/e3-swagger-ui-init.js`) that reads its settings from
its tag's `data-config`, and the OAuth2 redirect page's script, FastAPI's, is served as a file too. ReDoc's page
has a policy of its own that also allows what ReDoc needs: inline styles and a worker made from a blob.
"""

import html
import json
import re
from pathlib import Path

import fastapi_standalone_docs
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_oauth2_redirect_html, swagger_ui_default_parameters
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from e3.api.security_headers import content_security_policy

DOCS_URL = "/docs"
REDOC_URL = "/redoc"
OAUTH2_REDIRECT_URL = f"{DOCS_URL}/oauth2-redirect"
FAVICON_URL = f"{DOCS_URL}/fastapi/favicon.png"
SWAGGER_INIT_URL = f"{DOCS_URL}/e3-swagger-ui-init.js"
OAUTH2_REDIRECT_SCRIPT_URL = f"{OAUTH2_REDIRECT_URL}.js"
# ReDoc styles the page with style elements it adds as it renders, and builds its search index in a worker it
# makes from a blob.
REDOC_CONTENT_SECURITY_POLICY = content_security_policy(inline_styles=True, blob_workers=True)

SWAGGER_UI_PAGE = """<!DOCTYPE html>
<html>
<head>
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link type="text/css" rel="stylesheet" href="{css}">
<link rel="shortcut icon" href="{favicon}">
<title>{title}</title>
</head>
<body>
<div id="swagger-ui"></div>
<script src="{bundle}"></script>
<script src="{init}" data-config="{config}"></script>
</body>
</html>
"""

# Starts Swagger UI as FastAPI's page does inline; the settings come from the tag's data-config (JSON).
SWAGGER_UI_INIT = """"use strict";
(function () {
  var config = JSON.parse(document.currentScript.dataset.config);
  config.oauth2RedirectUrl = window.location.origin + config.oauth2RedirectUrl;
  config.presets = [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset];
  window.ui = SwaggerUIBundle(config);
})();
"""

OAUTH2_REDIRECT_PAGE = """<!doctype html>
<html lang="en-US">
<head><title>Swagger UI: OAuth2 Redirect</title></head>
<body><script src="{script}"></script></body>
</html>
"""
# FastAPI's redirect page's one inline script, as it is.
OAUTH2_REDIRECT_SCRIPT = re.search(r"<script>(.*)</script>", get_swagger_ui_oauth2_redirect_html().body.decode(),
                                   re.S).group(1)

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
        config = {"url": root + openapi_url, **swagger_ui_default_parameters,
                  "oauth2RedirectUrl": root + OAUTH2_REDIRECT_URL}  # a path: the script puts the origin before it
        return HTMLResponse(SWAGGER_UI_PAGE.format(
            css=f"{root}{DOCS_URL}/swagger-ui.css", favicon=root + FAVICON_URL,
            title=html.escape(f"{app.title} - Swagger UI"), bundle=f"{root}{DOCS_URL}/swagger-ui-bundle.js",
            init=root + SWAGGER_INIT_URL, config=html.escape(json.dumps(config), quote=True)))

    async def swagger_ui_init(request: Request) -> Response:
        return Response(SWAGGER_UI_INIT, media_type="text/javascript")

    async def swagger_ui_oauth2_redirect(request: Request) -> HTMLResponse:
        return HTMLResponse(OAUTH2_REDIRECT_PAGE.format(script=_root_path(request) + OAUTH2_REDIRECT_SCRIPT_URL))

    async def swagger_ui_oauth2_redirect_script(request: Request) -> Response:
        return Response(OAUTH2_REDIRECT_SCRIPT, media_type="text/javascript")

    async def redoc(request: Request) -> HTMLResponse:
        root = _root_path(request)
        page = get_redoc_html(openapi_url=root + openapi_url, title=f"{app.title} - ReDoc",
                              redoc_js_url=f"{root}{REDOC_URL}/redoc.standalone.js",
                              redoc_favicon_url=root + FAVICON_URL, with_google_fonts=False)
        page.headers["Content-Security-Policy"] = REDOC_CONTENT_SECURITY_POLICY
        return page

    # Pages before the folders mounted below them, so that a folder never answers for a page.
    app.add_route(DOCS_URL, swagger_ui, include_in_schema=False)
    app.add_route(SWAGGER_INIT_URL, swagger_ui_init, include_in_schema=False)
    app.add_route(OAUTH2_REDIRECT_URL, swagger_ui_oauth2_redirect, include_in_schema=False)
    app.add_route(OAUTH2_REDIRECT_SCRIPT_URL, swagger_ui_oauth2_redirect_script, include_in_schema=False)
    app.add_route(REDOC_URL, redoc, include_in_schema=False)
    app.mount(f"{DOCS_URL}/fastapi", StaticFiles(directory=ASSETS / "fastapi"), name="docs-favicon")
    app.mount(DOCS_URL, StaticFiles(directory=ASSETS / "swagger"), name="docs-swagger-ui")
    app.mount(REDOC_URL, StaticFiles(directory=ASSETS / "redoc"), name="docs-redoc")
