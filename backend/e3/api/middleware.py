"""Request guards, run before FastAPI parses anything, so hostile input is refused without being decoded:
the body (at most 1 MiB, and JSON no deeper than the parser can safely take) and the URL (no NUL byte, which
no text column can hold).
"""

import json
from urllib.parse import parse_qsl

from e3.core.errors import FieldError, ValidationFailed
from e3.schemas.documents import MAX_BODY_BYTES, MAX_DEPTH, json_depth_exceeds


def _error(status: int, code: str, message: str) -> tuple[int, bytes]:
    return status, json.dumps({"code": code, "message": message, "errors": [{"field": "body", "message": message,
                                                                               "code": code}]}).encode()


class BodyGuard:
    def __init__(self, app, max_bytes: int = MAX_BODY_BYTES, max_depth: int = MAX_DEPTH):
        self.app, self.max_bytes, self.max_depth = app, max_bytes, max_depth

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS", "DELETE"):
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            return await self._reject(send, *self._too_large())
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                return await self._reject(send, *self._too_large())
        content_type = headers.get(b"content-type", b"").decode("latin-1").lower()
        if "json" in content_type and json_depth_exceeds(body, self.max_depth):
            return await self._reject(send, *_error(400, "too_deeply_nested",
                                                     f"JSON nested deeper than {self.max_depth} levels"))
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    def _too_large(self) -> tuple[int, bytes]:
        return _error(413, "payload_too_large", f"request body is larger than {self.max_bytes} bytes (1 MiB)")

    @staticmethod
    async def _reject(send, status: int, body: bytes) -> None:
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class NulGuard:
    """A NUL byte (%00) in the path or a query parameter is a 422 naming where it is, not a database error."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            field = _nul_field(scope)
            if field is not None:
                if scope["type"] == "websocket":  # refused before the handshake completes: a 403 to the client
                    return await send({"type": "websocket.close", "code": 4400})
                body = json.dumps(ValidationFailed([FieldError(field, "must not contain a NUL byte (%00)",
                                                               "nul_byte")]).body()).encode()
                return await BodyGuard._reject(send, 422, body)
        return await self.app(scope, receive, send)


def _nul_field(scope) -> str | None:
    if "\x00" in scope["path"]:
        return "path"
    query = scope.get("query_string", b"").decode("latin-1")
    if "%00" in query or "\x00" in query:
        for name, value in parse_qsl(query, keep_blank_values=True):
            if "\x00" in name or "\x00" in value:
                return name.replace("\x00", "") or "query"
    return None
