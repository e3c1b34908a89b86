"""Issue 19, the web-facing hardening (docs/security.md): the local token only for the UI's own page (item 6),
open streams ended when their token is revoked or expires (item 10), security headers on every response and
proper answers to OPTIONS, undeclared methods and a failed readiness check (item 14)."""

import asyncio
import json
import re
import threading
import time

import httpx
import pytest
from helpers import app_serving_ui, start_process, stop_process
from sqlalchemy import text
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from e3.core.db import get_engine
from e3.core.embedded import free_tcp_port

LOCAL_TOKEN = "e3_local-mode-token-of-this-test"
REVOKED_WITHIN_S = 1.5


# --- item 6: GET /api/v1/local-token ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def local_api(backing_services):
    """A real `e3 api` in local mode (as `e3 up` starts it) on a free port; yields (url, port)."""
    port = free_tcp_port()
    proc = start_process(["api"], backing_services, "api-local.log", lambda log: b"startup complete" in log,
                         E3_LOCAL_MODE="1", E3_LOCAL_ADMIN_TOKEN=LOCAL_TOKEN, E3_API_PORT=str(port))
    yield f"http://127.0.0.1:{port}", port
    stop_process(proc)


def _local_token(url: str, **headers) -> httpx.Response:
    return httpx.get(f"{url}/api/v1/local-token", headers=headers, timeout=10)


def test_issue19_item6_local_token_given_to_the_uis_own_request(local_api):
    url, port = local_api
    assert _local_token(url).json() == {"token": LOCAL_TOKEN}  # Host 127.0.0.1:<port>, no Origin: the UI's GET
    for own in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
        r = _local_token(url, Host=own, Origin=f"http://{own}")
        assert r.status_code == 200 and r.json()["token"] == LOCAL_TOKEN, own


@pytest.mark.parametrize("host", ["rebound.example.com:{port}", "rebound.example.com", "127.0.0.1:{other}",
                                  "localhost.example.com:{port}", "10.0.0.1:{port}"])
def test_issue19_item6_local_token_refused_with_a_foreign_host(local_api, host):
    url, port = local_api
    host = host.format(port=port, other=port + 1)
    r = _local_token(url, Host=host)  # what a DNS-rebinding page's request carries: its own name
    assert r.status_code == 403
    body = r.json()
    assert body["code"] == "foreign_host" and body["errors"][0]["field"] == "Host"
    assert host in body["message"] and LOCAL_TOKEN not in r.text


@pytest.mark.parametrize("origin", ["http://evil.example.com", "http://127.0.0.1:{other}", "null",
                                    "https://127.0.0.1:{port}", "http://localhost.evil.example.com:{port}"])
def test_issue19_item6_local_token_refused_with_a_foreign_origin(local_api, origin):
    url, port = local_api
    origin = origin.format(port=port, other=port + 1)
    r = _local_token(url, Origin=origin)
    assert r.status_code == 403
    body = r.json()
    assert body["code"] == "foreign_origin" and body["errors"][0]["field"] == "Origin"
    assert origin in body["message"] and LOCAL_TOKEN not in r.text


# --- item 10: streams end when their token stops authenticating ----------------------------------------------

def _new_token(client, *scopes: str) -> dict:
    r = client.post("/api/v1/tokens", json={"name": "viewer", "scopes": list(scopes)})
    assert r.status_code == 201
    return r.json()


class SseReader:
    """Reads a server-sent-event stream in a thread: counts its events and notes when the server ends it."""

    def __init__(self, url: str, token: str):
        self.events, self.ended_at = 0, None
        self._client = httpx.Client(timeout=httpx.Timeout(5.0, read=30.0),
                                    headers={"Authorization": f"Bearer {token}"})
        self._response = self._client.send(self._client.build_request("GET", url), stream=True)
        assert self._response.status_code == 200, self._response.read()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        try:
            for line in self._response.iter_lines():
                if line.startswith("data: "):
                    self.events += 1
            self.ended_at = time.monotonic()
        except httpx.HTTPError:
            pass

    def wait_for_events(self, count: int, timeout_s: float = 10.0) -> None:
        deadline = time.monotonic() + timeout_s
        while self.events < count:
            assert time.monotonic() < deadline, f"{self.events} events, not {count}"
            time.sleep(0.02)

    def wait_for_end(self, timeout_s: float) -> float | None:
        self._thread.join(timeout_s)
        return self.ended_at

    def close(self):
        self._response.close()
        self._client.close()


@pytest.fixture
def sse(api_server):
    readers = []

    def open_stream(path: str, token: str) -> SseReader:
        readers.append(SseReader(f"{api_server}/api/v1{path}", token))
        return readers[-1]

    yield open_stream
    for reader in readers:
        reader.close()


def _emit_event() -> None:
    from e3.core.db import session_scope
    from e3.services import events

    with session_scope() as session:
        events.emit(session, "test.revocation", "test/stream")


def test_issue19_item10_event_stream_ends_within_a_second_of_its_tokens_revocation(client, sse):
    token = _new_token(client, "read")
    _emit_event()
    reader = sse("/events/stream?since=0", token["token"])
    reader.wait_for_events(1)  # the stream runs
    revoked_at = time.monotonic()
    assert client.delete(f"/api/v1/tokens/{token['id']}").status_code == 200
    ended_at = reader.wait_for_end(REVOKED_WITHIN_S + 1)
    assert ended_at is not None, "the stream still runs after its token was revoked"
    assert ended_at - revoked_at < REVOKED_WITHIN_S


def test_issue19_item10_live_sse_ends_within_a_second_of_its_tokens_revocation(client, sse):
    assert client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 1,
                                                 "server_type": "type1-smartnic", "name": "rev1"}).status_code == 201
    token, other = _new_token(client, "read"), _new_token(client, "read")
    reader, bystander = sse("/clusters/rev1/live/stream", token["token"]), sse("/clusters/rev1/live/stream",
                                                                                other["token"])
    reader.wait_for_events(2)  # a snapshot, then updates at least 4 a second
    revoked_at = time.monotonic()
    assert client.delete(f"/api/v1/tokens/{token['id']}").status_code == 200
    ended_at = reader.wait_for_end(REVOKED_WITHIN_S + 1)
    assert ended_at is not None, f"the stream still runs after its token was revoked ({reader.events} messages)"
    assert ended_at - revoked_at < REVOKED_WITHIN_S
    seen = bystander.events  # a stream of another token goes on
    bystander.wait_for_events(seen + 2)
    assert bystander.ended_at is None


def test_issue19_item10_live_websocket_closes_within_a_second_of_its_tokens_revocation(api_server, client):
    assert client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 1,
                                                 "server_type": "type1-smartnic", "name": "rev2"}).status_code == 201
    token = _new_token(client, "read")
    url = api_server.replace("http://", "ws://") + "/api/v1/clusters/rev2/live"

    async def scenario() -> tuple[float, int, str]:
        async with connect(url, subprotocols=["e3.live.v1", f"e3.bearer.{token['token']}"]) as ws:
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "snapshot"
            revoked_at = time.monotonic()
            await asyncio.to_thread(client.delete, f"/api/v1/tokens/{token['id']}")
            updates = 0
            try:
                while time.monotonic() - revoked_at < REVOKED_WITHIN_S + 1:  # updates come 4 to 10 a second
                    await asyncio.wait_for(ws.recv(), REVOKED_WITHIN_S + 1)
                    updates += 1
            except ConnectionClosed as closed:
                return time.monotonic() - revoked_at, closed.rcvd.code, closed.rcvd.reason
            pytest.fail(f"the socket is still open after its token was revoked ({updates} updates since)")

    elapsed, code, reason = asyncio.run(scenario())
    assert code == 4401 and "revoked" in reason
    assert elapsed < REVOKED_WITHIN_S


def test_issue19_item10_event_stream_ends_when_its_token_expires(client, sse):
    token = _new_token(client, "read")
    _emit_event()
    reader = sse("/events/stream?since=0", token["token"])
    reader.wait_for_events(1)
    with get_engine().begin() as conn:  # expiry is in whole days through the API: bring it forward
        conn.execute(text("UPDATE api_tokens SET expires_at = now() + interval '1 second' WHERE id = :id"),
                     {"id": token["id"]})
    expires_at = time.monotonic() + 1
    ended_at = reader.wait_for_end(1 + REVOKED_WITHIN_S + 1)
    assert ended_at is not None, "the stream still runs after its token expired"
    assert ended_at - expires_at < REVOKED_WITHIN_S


# --- item 14: headers, OPTIONS and undeclared methods, readiness ------------------------------------------------

@pytest.fixture
def ui_app(backing_services, monkeypatch, tmp_path):
    """The app with a built UI mounted at `/` (its catch-all static files), as `e3 up` serves it."""
    (tmp_path / "index.html").write_text('<!doctype html><title>the UI</title><script src="/assets/ui.js"></script>')
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "ui.js").write_text("console.log('ui')")
    with app_serving_ui(monkeypatch, tmp_path) as c:
        yield c


def _csp(response) -> dict[str, str]:
    return dict(d.strip().split(" ", 1) for d in response.headers["content-security-policy"].split(";"))


@pytest.mark.parametrize("path", ["/", "/assets/ui.js", "/api/v1/clusters", "/api/v1/nowhere", "/healthz", "/readyz",
                                  "/docs", "/docs/swagger-ui-bundle.js", "/redoc", "/openapi.json"])
def test_issue19_item14_security_headers_on_the_ui_api_and_docs(ui_app, admin_token, path):
    for headers in ({}, {"Authorization": f"Bearer {admin_token}"}):  # refused (401) and answered alike
        r = ui_app.get(path, headers=headers)
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["referrer-policy"] == "no-referrer"
        csp = _csp(r)
        assert csp["frame-ancestors"] == "'none'"
        assert csp["script-src"] == "'self'"  # no inline script, no eval, no other host
        assert csp["default-src"] == "'self'" and csp["connect-src"] == "'self'"


def test_issue19_item14_body_guard_refusals_carry_the_headers_too(ui_app, admin_token):
    r = ui_app.post("/api/v1/clusters", content=b"x" * (1024 * 1024 + 1),
                    headers={"Authorization": f"Bearer {admin_token}", "Content-Type": "application/json"})
    assert r.status_code == 413 and r.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("page", ["/docs", "/redoc", "/docs/oauth2-redirect"])
def test_issue19_item14_docs_pages_run_no_inline_script(ui_app, page):
    html = ui_app.get(page).text
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert scripts
    for attributes, body in scripts:
        assert 'src="' in attributes and not body.strip(), f"an inline script on {page}"
        src = re.search(r'src="([^"]+)"', attributes).group(1)
        script = ui_app.get(src)
        assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")


def test_issue19_item14_options_on_api_paths_answers_the_allowed_methods(ui_app, admin_token):
    for path, allow in [("/api/v1/clusters", "GET, OPTIONS, POST"),
                        ("/api/v1/applications/iot-ts", "DELETE, GET, OPTIONS, PUT"),
                        ("/api/v1/tokens/0b3f7c8e-1111-4222-8333-944445555666", "DELETE, OPTIONS")]:
        r = ui_app.options(path)  # no token needed to ask what a path takes
        assert r.status_code == 204 and r.headers["allow"] == allow, path
        assert not r.content
        assert "access-control-allow-origin" not in r.headers  # no CORS: a cross-origin preflight fails


@pytest.mark.parametrize("method", ["PATCH", "PUT", "TRACE", "PROPFIND"])
def test_issue19_item14_undeclared_methods_on_api_paths_are_405_json_with_allow(ui_app, admin_token, method):
    r = ui_app.request(method, "/api/v1/clusters", headers={"Authorization": f"Bearer {admin_token}"})
    assert r.status_code == 405
    assert r.headers["allow"] == "GET, OPTIONS, POST"
    body = r.json()
    assert body["code"] == "method_not_allowed" and body["errors"][0]["field"] == "method"
    assert method in body["message"]


def test_issue19_item14_an_unknown_api_path_is_a_json_404_not_the_ui(ui_app, admin_token):
    r = ui_app.get("/api/v1/no-such-thing", headers={"Authorization": f"Bearer {admin_token}"})
    assert r.status_code == 404 and r.json()["code"] == "not_found" and "/api/v1/no-such-thing" in r.json()["message"]
    assert ui_app.get("/").text.startswith("<!doctype html><title>the UI")  # the UI itself is still there


def test_issue19_item14_readyz_names_the_dependency_down_without_the_exception(anon_client, monkeypatch):
    from e3.core.config import get_settings

    port = free_tcp_port()  # nothing listens there
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{port}/0")
    get_settings.cache_clear()
    try:
        r = anon_client.get("/readyz")
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert r.status_code == 503
    checks = r.json()["checks"]
    assert checks["postgres"]["ok"] and checks["migrations"]["ok"]
    assert checks["redis"] == {"ok": False, "detail": "Redis is not reachable (the cause is in the API's log)"}
    for leak in (str(port), "Error", "refused", "127.0.0.1"):
        assert leak not in r.text
