"""GET /api/v1/events/stream against a real `e3 api` process: events pushed as they are committed (never one
rolled back), filtered by kind and application, started with the newest `last`, resumed after Last-Event-ID
(which wins over `last`); refusals before the stream starts."""

import json
import threading
import time

import httpx
import pytest

from e3.core.db import session_scope
from e3.services import events


def _emit(kind: str, *, commit: bool = True, **data) -> None:
    with session_scope() as session:
        events.emit(session, kind, "test/stream", **data)
        if not commit:
            session.rollback()


class Reader:
    """Reads a server-sent-event stream in a thread; `events` fills as they arrive."""

    def __init__(self, url: str, token: str, **headers):
        self.events: list[dict] = []
        self._client = httpx.Client(timeout=httpx.Timeout(5.0, read=30.0),
                                    headers={"Authorization": f"Bearer {token}", **headers})
        self._response = self._client.send(self._client.build_request("GET", url), stream=True)
        assert self._response.status_code == 200, self._response.read()
        assert self._response.headers["content-type"].startswith("text/event-stream")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        fields = {}
        try:
            for line in self._response.iter_lines():
                if line == "" and fields:
                    event = json.loads(fields["data"])
                    assert (event["id"], event["kind"]) == (int(fields["id"]), fields["event"])
                    self.events.append(event)
                    fields = {}
                elif line and not line.startswith(":"):
                    name, _, value = line.partition(": ")
                    fields[name] = value
        except httpx.HTTPError:
            pass  # closed by the test

    def wait_for(self, count: int, timeout_s: float = 10.0) -> list[dict]:
        deadline = time.monotonic() + timeout_s
        while len(self.events) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.events

    def close(self):
        self._response.close()
        self._client.close()


@pytest.fixture
def stream(api_server, admin_token):
    readers = []

    def open_stream(query: str = "", **headers) -> Reader:
        readers.append(Reader(f"{api_server}/api/v1/events/stream{query}", admin_token, **headers))
        return readers[-1]

    yield open_stream
    for r in readers:
        r.close()


def test_committed_events_are_pushed_at_once_and_rolled_back_ones_never(stream):
    _emit("test.before")
    reader = stream("?since=0")
    assert [e["kind"] for e in reader.wait_for(1)] == ["test.before"]  # the backlog first
    _emit("test.ghost", commit=False)
    _emit("test.live", n=1)
    got = reader.wait_for(2)
    assert [e["kind"] for e in got] == ["test.before", "test.live"] and got[1]["data"] == {"n": 1}


def test_kind_filter_and_resume_after_last_event_id(stream):
    _emit("migration.step", step="push")
    _emit("node.down")
    _emit("migration.succeeded")
    first = stream("?kind=migration.")
    got = first.wait_for(2)
    assert [e["kind"] for e in got] == ["migration.step", "migration.succeeded"]
    resumed = stream("?kind=migration.", **{"Last-Event-ID": str(got[0]["id"])})
    assert [e["kind"] for e in resumed.wait_for(1)] == ["migration.succeeded"]


def test_refusals_come_before_the_stream(api_server, make_token):
    url = f"{api_server}/api/v1/events/stream"
    assert httpx.get(url).status_code == 401
    reader = make_token("read", name="viewer")
    r = httpx.get(url, params={"cluster": "nowhere"}, headers={"Authorization": f"Bearer {reader}"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "cluster"
    r = httpx.get(url, params={"since": -1}, headers={"Authorization": f"Bearer {reader}"})
    assert r.status_code == 422


def test_last_starts_with_the_newest_events_oldest_first_then_goes_on_live(stream):
    for n in range(5):
        _emit("test.old", n=n)
    reader = stream("?last=2")
    assert [e["data"]["n"] for e in reader.wait_for(2)] == [3, 4]
    _emit("test.new", n=5)
    assert [e["data"]["n"] for e in reader.wait_for(3)] == [3, 4, 5]
    time.sleep(0.2)
    assert len(reader.events) == 3  # nothing older came after


def test_a_resume_or_since_wins_over_last(stream):
    for n in range(5):
        _emit("test.old", n=n)
    first = stream("?last=1").wait_for(1)
    resumed = stream("?last=1", **{"Last-Event-ID": str(first[0]["id"] - 3)})  # after n=1: nothing skipped
    assert [e["data"]["n"] for e in resumed.wait_for(3)] == [2, 3, 4]
    since = stream(f"?last=1&since={first[0]['id'] - 2}")
    assert [e["data"]["n"] for e in since.wait_for(2)] == [3, 4]


def test_the_application_filter_keeps_that_applications_events(stream):
    _emit("migration.requested", application="shop")
    _emit("node.down")
    _emit("migration.requested", application="iot")
    _emit("migration.succeeded", application="shop")
    got = stream("?application=shop").wait_for(2)
    assert [(e["kind"], e["application"]) for e in got] == [("migration.requested", "shop"),
                                                             ("migration.succeeded", "shop")]
    _emit("migration.step", application="iot")
    _emit("migration.step", application="shop")
    assert [e["kind"] for e in stream("?application=shop").wait_for(3)][-1] == "migration.step"
    newest = stream("?application=shop&last=1").wait_for(1)
    assert [(e["kind"], e["data"]["application"]) for e in newest] == [("migration.step", "shop")]


@pytest.mark.parametrize("last", [0, 1001, "x"])
def test_a_bad_last_is_refused_naming_the_field(api_server, admin_token, last):
    for path in ("/api/v1/events/stream", "/api/v1/events"):
        r = httpx.get(f"{api_server}{path}", params={"last": last},
                      headers={"Authorization": f"Bearer {admin_token}"})
        assert r.status_code == 422, r.text
        assert r.json()["errors"][0]["field"] == "last", r.json()
