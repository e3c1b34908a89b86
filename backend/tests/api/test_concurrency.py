"""Issue 19, "no request can block the server": races answered by the database (one winner, the rest 409/412),
a held row lock answered within the lock timeout, more requests than connections answered or refused (503)
instead of a deadlock, bad numbers and NUL bytes as 422, Postgres down as 503. All against a real uvicorn
server (`e3 api`) on the test Postgres."""

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import httpx
import psycopg
import pytest

from e3.core.db import libpq_url
from e3.core.embedded import free_tcp_port
from helpers import start_process, stop_process, wait_for_job

ANSWER_WITHIN_S = 20  # a request not answered by then hangs: the test fails instead of waiting forever
LOCK_TIMEOUT_MS = 500


def _app(name: str, shards: int = 1) -> dict:
    return {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": name},
            "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "shards": shards}], "edges": []}}


def _cluster(name: str) -> dict:
    return {"generator": "fattree", "servers": 2, "server_type": "beefy", "name": name}


def _all_at_once(count: int, request) -> list[httpx.Response]:
    """request(i) from `count` threads released together; every answer (an unanswered one raises)."""
    start = threading.Barrier(count)

    def one(i: int) -> httpx.Response:
        start.wait()
        return request(i)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(one, range(count)))


class _HealthWatch:
    """Polls /healthz while a burst runs; `slowest` is the longest answer (or ANSWER_WITHIN_S+ if none came)."""

    def __init__(self, url: str):
        self.url, self.slowest, self.answers, self._stop = url, 0.0, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            began = time.monotonic()
            try:
                ok = httpx.get(f"{self.url}/healthz", timeout=ANSWER_WITHIN_S).status_code == 200
            except httpx.HTTPError:
                ok = False
            self.slowest = max(self.slowest, time.monotonic() - began if ok else float(ANSWER_WITHIN_S))
            self.answers += ok
            time.sleep(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(ANSWER_WITHIN_S + 5)


@pytest.fixture
def api(api_server, admin_token):
    with httpx.Client(base_url=api_server, headers={"Authorization": f"Bearer {admin_token}"},
                      timeout=ANSWER_WITHIN_S) as c:
        yield c


@pytest.fixture(scope="module")
def tight_server(backing_services):
    """An `e3 api` with 2 request connections, room for 4 more requests to wait at most 2 s, and a 500 ms
    lock timeout: overload and lock waits show at once."""
    port = free_tcp_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_process(["api", "--port", str(port)], backing_services, "api-tight.log",
                         lambda log: b"Uvicorn running" in log, E3_API_DB_CONNECTIONS="2", E3_API_QUEUE="4",
                         E3_API_QUEUE_WAIT_S="2", E3_DB_LOCK_TIMEOUT_MS=str(LOCK_TIMEOUT_MS))
    yield url
    stop_process(proc)


@pytest.fixture
def tight(tight_server, admin_token):
    with httpx.Client(base_url=tight_server, headers={"Authorization": f"Bearer {admin_token}"},
                      timeout=ANSWER_WITHIN_S) as c:
        yield c


@pytest.mark.chaos
def test_issue19_item1_concurrent_same_name_application_posts_one_201_rest_409(api, api_server):
    with _HealthWatch(api_server) as health:
        answers = _all_at_once(8, lambda i: api.post("/api/v1/applications", json=_app("race", shards=i + 1)))
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [201] + [409] * 7, [r.text for r in answers]
    assert all(r.json()["code"] == "already_exists" for r in answers if r.status_code == 409)
    assert health.answers and health.slowest < 5
    assert api.get("/api/v1/applications/race").json()["latest_version"] == 1


@pytest.mark.chaos
def test_issue19_item1_concurrent_same_name_cluster_posts_one_201_rest_409(api, api_server):
    with _HealthWatch(api_server) as health:
        answers = _all_at_once(10, lambda i: api.post("/api/v1/clusters", json=_cluster("race")))
    assert sorted(r.status_code for r in answers) == [201] + [409] * 9, [r.text for r in answers]
    assert {r.headers["content-type"] for r in answers} == {"application/json"}
    assert health.answers and health.slowest < 5
    assert api.get("/api/v1/clusters").json()["total"] == 1


@pytest.mark.chaos
def test_issue19_item1_concurrent_puts_with_one_etag_one_200_rest_412(api):
    etag = api.post("/api/v1/applications", json=_app("shop")).headers["etag"]
    answers = _all_at_once(6, lambda i: api.put("/api/v1/applications/shop", json=_app("shop", shards=i + 2),
                                                headers={"If-Match": etag}))
    assert sorted(r.status_code for r in answers) == [200] + [412] * 5, [r.text for r in answers]
    assert api.get("/api/v1/applications/shop").json()["latest_version"] == 2


def _stale_last_used(database_url: str) -> None:
    with psycopg.connect(libpq_url(database_url), autocommit=True) as conn:
        conn.execute("UPDATE api_tokens SET last_used_at = %s", (datetime.now(timezone.utc) - timedelta(hours=1),))


@pytest.mark.chaos
def test_issue19_item1_writes_after_idle_do_not_wait_for_the_tokens_row(tight, backing_services):
    """Another request refreshing the token's last_used_at (its row locked until it commits) does not hold up
    this one."""
    _stale_last_used(backing_services["database_url"])
    with psycopg.connect(libpq_url(backing_services["database_url"])) as other:
        other.execute("UPDATE api_tokens SET last_used_at = now()")
        began = time.monotonic()
        answers = _all_at_once(2, lambda i: tight.post("/api/v1/applications", json=_app(f"idle-{i}")))
        took = time.monotonic() - began
        other.rollback()
    assert [r.status_code for r in answers] == [201, 201], [r.text for r in answers]
    assert took < LOCK_TIMEOUT_MS / 1000


@pytest.mark.chaos
def test_issue19_item1_a_held_row_lock_is_a_409_within_the_lock_timeout(tight, tight_server, backing_services):
    etag = tight.post("/api/v1/applications", json=_app("locked")).headers["etag"]
    with psycopg.connect(libpq_url(backing_services["database_url"])) as other:
        other.execute("SELECT id FROM applications WHERE name = 'locked' FOR UPDATE")
        with _HealthWatch(tight_server) as health:
            began = time.monotonic()
            r = tight.put("/api/v1/applications/locked", json=_app("locked", shards=3), headers={"If-Match": etag})
            took = time.monotonic() - began
        other.rollback()
    assert r.status_code == 409, r.text
    assert r.json()["code"] == "resource_busy" and r.headers["retry-after"] == "1"
    assert LOCK_TIMEOUT_MS / 1000 <= took < 5
    assert health.answers and health.slowest < 2
    after = tight.put("/api/v1/applications/locked", json=_app("locked", shards=3), headers={"If-Match": etag})
    assert after.status_code == 200 and after.json()["latest_version"] == 2


@pytest.mark.chaos
def test_issue19_item1_a_statement_past_the_statement_timeout_is_a_503(backing_services, admin_token):
    """With no lock timeout, the statement timeout still ends a write waiting on a held row: 503, not a hang."""
    port = free_tcp_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_process(["api", "--port", str(port)], backing_services, "api-stmt.log",
                         lambda log: b"Uvicorn running" in log, E3_DB_LOCK_TIMEOUT_MS="0",
                         E3_DB_STATEMENT_TIMEOUT_MS="700")
    try:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {admin_token}"},
                          timeout=ANSWER_WITHIN_S) as api:
            api.post("/api/v1/applications", json=_app("slow"))
            with psycopg.connect(libpq_url(backing_services["database_url"])) as other:
                other.execute("SELECT id FROM applications WHERE name = 'slow' FOR UPDATE")
                r = api.put("/api/v1/applications/slow", json=_app("slow", shards=3))
                other.rollback()
    finally:
        stop_process(proc)
    assert r.status_code == 503, r.text
    assert r.json()["code"] == "database_unavailable" and r.headers["retry-after"] == "1"


@pytest.mark.chaos
def test_issue19_item2_more_requests_than_connections_are_answered_or_refused(tight, tight_server):
    """2 connections, 4 waiting places, 60 requests at once: each answered (200/201) or refused at once (503
    with Retry-After and the JSON error body); none hangs, and the API serves normally afterwards."""

    def request(i: int) -> httpx.Response:
        if i % 3 == 0:
            return tight.post("/api/v1/applications", json=_app(f"load-{i}"))
        return tight.get("/api/v1/applications", params={"limit": 1000})

    with _HealthWatch(tight_server) as health:
        answers = _all_at_once(60, request)
    statuses = {r.status_code for r in answers}
    assert statuses <= {200, 201, 503} and 503 in statuses and statuses & {200, 201}, statuses
    refused = [r for r in answers if r.status_code == 503]
    assert all(r.json()["code"] == "overloaded" and r.headers["retry-after"] == "1" for r in refused)
    assert health.answers and health.slowest < 5
    created = sum(r.status_code == 201 for r in answers)
    assert tight.get("/api/v1/applications").json()["total"] == created  # a refused write stored nothing


@pytest.mark.chaos
def test_issue19_item2_open_event_streams_do_not_take_the_turns(tight, tight_server, admin_token):
    """More long-lived streams than turns and waiting places (2 + 4): requests are still served."""
    with httpx.Client(base_url=tight_server, headers={"Authorization": f"Bearer {admin_token}"},
                      timeout=ANSWER_WITHIN_S) as streams:
        opened = [streams.send(streams.build_request("GET", "/api/v1/events/stream"), stream=True) for _ in range(8)]
        try:
            assert {r.status_code for r in opened} == {200}
            answers = [tight.get("/api/v1/applications") for _ in range(3)]
        finally:
            for r in opened:
                r.close()
    assert [r.status_code for r in answers] == [200, 200, 200], [r.text for r in answers]


@pytest.mark.parametrize("path", ["/api/v1/applications", "/api/v1/applications/x/versions", "/api/v1/audit",
                                  "/api/v1/clusters", "/api/v1/clusters/x/nodes", "/api/v1/deployments",
                                  "/api/v1/jobs", "/api/v1/migrations", "/api/v1/tokens"])
def test_issue19_item11_offset_past_bigint_is_a_422_naming_offset(client, path):
    r = client.get(path, params={"offset": 2**63})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "offset", r.text


def test_issue19_item11_since_past_bigint_is_a_422(client):
    r = client.get("/api/v1/events", params={"since": 2**63})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "since", r.text
    assert client.get("/api/v1/events", params={"since": 2**63 - 1}).status_code == 200


def test_issue19_item11_versions_past_int4_are_a_422_naming_version(client):
    client.post("/api/v1/applications", json=_app("shop"))
    client.post("/api/v1/clusters", json=_cluster("c1"))
    answers = [client.get("/api/v1/applications/shop/export", params={"version": 35535988305474}),
               client.post("/api/v1/deployments", json={"application": "shop", "cluster": "c1",
                                                        "version": 15667988088}),
               client.delete("/api/v1/applications/shop/versions/15667988088")]
    for r in answers:
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == "version", r.text


@pytest.mark.parametrize("url, field", [("/api/v1/clusters/%00", "path"),
                                        ("/api/v1/deployments?cluster=%00", "cluster"),
                                        ("/api/v1/events?kind=a%00b", "kind")])
def test_issue19_item11_a_nul_byte_in_the_url_is_a_422(client, url, field):
    r = client.get(url)
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0] == {"field": field, "message": "must not contain a NUL byte (%00)",
                                     "code": "nul_byte"}


def test_issue19_item11_postgres_unreachable_is_a_503_with_retry_after(backing_services, admin_token):
    port = free_tcp_port()  # nothing listens there: Postgres is down
    url = f"http://127.0.0.1:{port}"
    proc = start_process(["api", "--port", str(port)], backing_services, "api-nodb.log",
                         lambda log: b"Uvicorn running" in log,
                         DATABASE_URL=f"postgresql+psycopg://e3@127.0.0.1:{free_tcp_port()}/e3")
    try:
        r = httpx.get(f"{url}/api/v1/clusters", headers={"Authorization": f"Bearer {admin_token}"},
                      timeout=ANSWER_WITHIN_S)
    finally:
        stop_process(proc)
    assert r.status_code == 503, r.text
    assert r.headers["content-type"] == "application/json" and r.headers["retry-after"] == "1"
    assert r.json()["code"] == "database_unavailable"


def test_issue19_item11_a_large_cluster_is_built_by_a_job_while_the_api_answers(api, api_server, worker):
    big = {"generator": "fattree", "servers": 20_000, "server_type": "beefy", "name": "big"}
    with _HealthWatch(api_server) as health:
        began = time.monotonic()
        r = api.post("/api/v1/clusters", json=big)
        took = time.monotonic() - began
        again = api.post("/api/v1/clusters", json=big)  # the name is taken at once
    job = wait_for_job(api, r.json()["job_id"], timeout=120)
    assert r.status_code == 202, r.text
    assert r.headers["location"] == r.json()["status_url"] and r.json()["servers"] == 20_000
    assert took < 2 and health.answers and health.slowest < 2
    assert again.status_code == 409 and again.json()["code"] == "already_exists"
    assert job["state"] == "succeeded" and job["kind"] == "cluster", job
    assert job["result"]["servers"] == 20_000
    cluster = api.get("/api/v1/clusters").json()["items"][0]
    assert (cluster["name"], cluster["servers"], cluster["nodes"]) == ("big", 20_000, 20_000)


def test_issue19_item11_a_large_cluster_the_queue_refuses_is_a_503_and_frees_the_name(client, monkeypatch):
    from kombu.exceptions import OperationalError

    from e3.core.celery_app import celery_app

    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(celery_app, "send_task", broker_down)
    big = {"generator": "fattree", "servers": 2001, "server_type": "beefy", "name": "big"}
    r = client.post("/api/v1/clusters", json=big)
    assert r.status_code == 503 and r.json()["code"] == "queue_unavailable", r.text
    assert client.get("/api/v1/clusters").json()["total"] == 0
    job = client.get("/api/v1/jobs", params={"state": "failed"}).json()["items"][0]
    assert job["kind"] == "cluster" and job["error"]["code"] == "queue_unavailable"


def test_issue19_item11_the_cli_follows_a_large_clusters_job(e3):
    out = e3("cluster", "create", "--generator", "fattree", "--servers", "2001", "--type", "beefy", "--name", "big",
             "--output", "json")
    created = json.loads(out.stdout)
    assert (created["name"], created["servers"], created["state"]) == ("big", 2001, "succeeded"), created
    listed = json.loads(e3("get", "clusters", "--output", "json").stdout)
    assert [(c["name"], c["servers"]) for c in listed] == [("big", 2001)]
