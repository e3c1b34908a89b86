"""Local mode only: the browser on this machine picks up the local admin token."""

from fastapi import APIRouter, Request

from e3.core.config import get_settings
from e3.core.errors import NotFound

router = APIRouter(tags=["local"])
LOOPBACK = ("127.0.0.1", "::1", "localhost")


@router.get("/local-token", include_in_schema=False)
def local_token(request: Request) -> dict:
    """The local admin token, when `e3 up` runs in local mode and the caller is on loopback."""
    settings = get_settings()
    client = request.client.host if request.client else ""
    if not (settings.local_mode and settings.local_admin_token and client in LOOPBACK):
        raise NotFound("not available: only `e3 up` in local mode hands out a token, and only on loopback")
    return {"token": settings.local_admin_token}
