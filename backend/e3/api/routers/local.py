"""Local mode only: the browser on this machine picks up the local admin token.

Being on loopback is not enough: a web page elsewhere can make the browser send requests to 127.0.0.1, and a
DNS-rebinding page (its own name re-pointed at 127.0.0.1) can even read the answers, as same-origin. So the
token also needs the request to name this server as the UI's own page does: a `Host` of 127.0.0.1, localhost
or [::1] with the port E3 listens on, and no `Origin` other than such an address. A rebinding page's requests
carry its own name in `Host`; another site's carry its `Origin`.
"""

from urllib.parse import urlsplit

from fastapi import APIRouter, Request

from e3.core.config import get_settings
from e3.core.errors import FieldError, Forbidden, NotFound

router = APIRouter(tags=["local"])
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _listening_port(request: Request) -> int:
    server = request.scope.get("server")
    return server[1] if server and server[1] else get_settings().api_port


def _loopback_address(host: str | None, port: int | None, listening: int) -> bool:
    return host in LOOPBACK and (port or 80) == listening


def _refuse_foreign_page(request: Request) -> None:
    """Forbidden unless Host and Origin (when sent) name this server by a loopback address."""
    listening = _listening_port(request)
    own = f"http://127.0.0.1:{listening} or http://localhost:{listening}"
    host = request.headers.get("host", "")
    try:
        parsed = urlsplit(f"//{host}")
        host_ok = _loopback_address(parsed.hostname, parsed.port, listening)
    except ValueError:  # a port that is not a number
        host_ok = False
    if not host_ok:
        message = f"the local token is only handed to the UI opened at {own}, not at Host '{host[:100]}'"
        raise Forbidden(message, [FieldError("Host", message, "foreign_host")], code="foreign_host")
    origin = request.headers.get("origin")
    if origin is None:  # a browser's same-origin GET sends none
        return
    try:
        parsed = urlsplit(origin)
        origin_ok = parsed.scheme == "http" and _loopback_address(parsed.hostname, parsed.port, listening)
    except ValueError:
        origin_ok = False
    if not origin_ok:
        message = f"the local token is only handed to pages of {own}, not to one of Origin '{origin[:100]}'"
        raise Forbidden(message, [FieldError("Origin", message, "foreign_origin")], code="foreign_origin")


@router.get("/local-token", include_in_schema=False)
def local_token(request: Request) -> dict:
    """The local admin token, when `e3 up` runs in local mode and the UI on this machine asks for it."""
    settings = get_settings()
    client = request.client.host if request.client else ""
    if not (settings.local_mode and settings.local_admin_token and client in LOOPBACK):
        raise NotFound("not available: only `e3 up` in local mode hands out a token, and only on loopback")
    _refuse_foreign_page(request)
    return {"token": settings.local_admin_token}
