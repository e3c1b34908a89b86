"""Security headers on every HTTP response: the UI and its files, the API, the docs pages (docs/security.md).

The policy names only E3's own origin, so an injected `<script>` (inline or from elsewhere) does not run, no page
of another site may frame the UI (clickjacking its deploy and migrate buttons), and no request leaves for
another host. The pages are written to work under it (the docs pages' set-up scripts are files,
e3/api/docs.py); a response that sets one of these headers itself keeps its own (ReDoc's page: a policy that
also lets it add style elements and build its search index in a worker made from a blob).
"""


def content_security_policy(*, inline_styles: bool = False, blob_workers: bool = False) -> str:
    """E3's policy: everything from E3's own origin only, no inline script and no eval, no framing by anyone.
    `inline_styles` and `blob_workers` loosen it for a page that needs them (ReDoc's, e3/api/docs.py)."""
    return "; ".join((
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'" if inline_styles else "style-src 'self'",
        "img-src 'self' data:",  # Swagger UI's icons and the UI's empty favicon are data: URLs
        "font-src 'self' data:",
        "connect-src 'self'",  # the API and the live WebSocket, on this host and port only
        "worker-src 'self' blob:" if blob_workers else "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ))


CONTENT_SECURITY_POLICY = content_security_policy()

HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),  # a file is only ever what its Content-Type says
    (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers that predate it
    (b"referrer-policy", b"no-referrer"),  # no E3 URL (cluster, application names) leaks to a linked site
)


class SecurityHeaders:
    """ASGI middleware adding HEADERS to each HTTP response that does not already carry them."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in HEADERS if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
