"""GET /metrics (docs/energy.md, "Prometheus metrics"): a `read` token needed, the exposition format, HTTP
durations by route template and status class (never the raw path), placement durations and migrations from the
database, and the controller's families from Redis while it keeps them there."""

import signal
import tempfile
import time
import uuid
import zlib
from pathlib import Path

import httpx
import pytest
import redis
from helpers import deploy_on_new_cluster, start_process, stop_process
from prometheus_client.parser import text_string_to_metric_families

from e3.api import http_metrics
from e3.api.metrics_directory import PREFIX
from e3.core.config import get_settings
from e3.core.db import session_scope
from e3.core.embedded import free_tcp_port
from e3.metrics import CONTROLLERS_KEY, controller_key
from e3.metrics.gzip_join import deflate_part
from e3.models import Migration

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "prom"},
       "spec": {"nodes": [{"id": "gw", "service": "api_gateway"}, {"id": "kv", "service": "kvs"}],
                "edges": [{"from": "gw", "to": "kv"}]}}


@pytest.fixture(autouse=True)
def fresh_database_figures(monkeypatch):
    monkeypatch.setattr(http_metrics.DATABASE.figures, "max_age_s", 0.0)


def _samples(client) -> dict[tuple, float]:
    r = client.get("/metrics")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    out = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_metrics_need_a_read_token(anon_client, make_token):
    r = anon_client.get("/metrics")
    assert r.status_code == 401 and r.json()["code"]
    assert anon_client.get("/metrics", headers={"Authorization": f"Bearer {make_token('read')}"}).status_code == 200


def test_http_durations_are_labelled_by_route_template_and_status_class(client):
    name = f"no-such-{uuid.uuid4().hex[:8]}"
    assert client.get(f"/api/v1/clusters/{name}").status_code == 404
    assert client.get(f"/no/such/{name}").status_code == 404
    samples = _samples(client)
    template = (("method", "GET"), ("route", "/api/v1/clusters/{name}"), ("status", "4xx"))
    assert samples[("e3_http_request_duration_seconds_count", template)] >= 1
    assert samples[("e3_http_request_duration_seconds_count",
                    (("method", "GET"), ("route", "unmatched"), ("status", "4xx")))] >= 1
    assert not [k for k in samples if any(name in v for _, v in k[1])], "a raw path became a label"


def test_placement_durations_and_migrations_come_from_the_database(client, worker):
    deployment_id = deploy_on_new_cluster(client, "pm", APP)
    job = client.get("/api/v1/jobs", params={"limit": 1}).json()["items"][0]
    placement = client.get(f"/api/v1/deployments/{deployment_id}/placement").json()["items"]
    with session_scope() as session:
        for state in ("succeeded", "failed", "running"):  # one under way is not counted yet
            session.add(Migration(instance_id=uuid.UUID(placement[0]["id"]) if state != "running"
                                  else uuid.UUID(placement[1]["id"]), source_node_id=uuid.UUID(placement[0]["node_id"]),
                                  target_node_id=uuid.UUID(placement[1]["node_id"]), reason="manual", state=state))
    samples = _samples(client)
    hcm = (("algorithm", "hcm"),)
    assert samples[("e3_placement_duration_seconds_count", hcm)] == 1
    assert samples[("e3_placement_duration_seconds_sum", hcm)] == pytest.approx(job["result"]["runtime_ms"] / 1000)
    assert samples[("e3_placement_duration_seconds_bucket", hcm + (("le", "+Inf"),))] == 1
    assert samples[("e3_migrations_total", (("outcome", "succeeded"), ("reason", "manual")))] == 1
    assert samples[("e3_migrations_total", (("outcome", "failed"), ("reason", "manual")))] == 1
    assert not [k for k in samples if ("outcome", "running") in k[1]]


def test_the_controllers_families_are_appended_while_it_keeps_them(client):
    store = redis.Redis.from_url(get_settings().redis_url)
    text = (b"# HELP e3_heartbeats_received_total x\n# TYPE e3_heartbeats_received_total counter\n"
            b"e3_heartbeats_received_total 42.0\n")
    store.hset(controller_key("c1"), mapping=deflate_part(text).fields())
    store.zadd(CONTROLLERS_KEY, {"c1": (time.time() + 60) * 1000})
    try:
        with client.stream("GET", "/metrics", headers={"Accept-Encoding": "gzip"}) as zipped:
            raw = b"".join(zipped.iter_raw())
        assert zipped.headers["content-encoding"] == "gzip"
        member = zlib.decompressobj(zlib.MAX_WBITS | 16)  # one gzip member, whole: a strict reader reads it all
        zipped_text = member.decompress(raw).decode()
        assert member.eof and not member.unused_data
        plain = client.get("/metrics", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers
        for answer in (zipped_text, plain.text):
            assert answer.startswith(text.decode())
            assert "e3_http_request_duration_seconds" in answer
        assert _samples(client)[("e3_heartbeats_received_total", ())] == 42
    finally:
        store.delete(controller_key("c1"))
        store.zrem(CONTROLLERS_KEY, "c1")
    assert ("e3_heartbeats_received_total", ()) not in _samples(client)  # a stopped controller's figures go


def test_several_controllers_families_are_merged_and_an_expired_ones_left_out(client):
    store = redis.Redis.from_url(get_settings().redis_url)
    head = b"# HELP e3_heartbeats_received_total x\n# TYPE e3_heartbeats_received_total counter\n"
    now_ms = time.time() * 1000
    for name, count, until in (("c1", 40, now_ms + 60_000), ("c2", 2, now_ms + 60_000), ("gone", 1000, now_ms - 1)):
        text = head + b"e3_heartbeats_received_total %d\n" % count
        store.hset(controller_key(name), mapping=deflate_part(text).fields())
        store.zadd(CONTROLLERS_KEY, {name: until})
    try:
        for encoding in ("gzip", "identity"):
            text = client.get("/metrics", headers={"Accept-Encoding": encoding}).text
            assert text.count("# TYPE e3_heartbeats_received_total") == 1
            assert _samples(client)[("e3_heartbeats_received_total", ())] == 42
    finally:
        for name in ("c1", "c2", "gone"):
            store.delete(controller_key(name))
            store.zrem(CONTROLLERS_KEY, name)


def test_a_controllers_unreadable_figures_fail_the_scrape_naming_it(client):
    store = redis.Redis.from_url(get_settings().redis_url)
    head = b"# HELP e3_heartbeats_received_total x\n# TYPE e3_heartbeats_received_total counter\n"
    until = (time.time() + 60) * 1000
    for name, text in (("c1", head + b"e3_heartbeats_received_total 40\n"), ("c2", b"e3_orphan_sample 1\n")):
        store.hset(controller_key(name), mapping=deflate_part(text).fields())
        store.zadd(CONTROLLERS_KEY, {name: until})
    try:
        r = client.get("/metrics")
        assert r.status_code == 503 and r.json()["code"] == "service_unavailable"
        assert "controller c2" in r.json()["message"] and "sample outside any family" in r.json()["message"]
    finally:
        for name in ("c1", "c2"):
            store.delete(controller_key(name))
            store.zrem(CONTROLLERS_KEY, name)


def test_http_durations_count_every_api_process(backing_services, admin_token):
    """E3_API_WORKERS=2: whichever process answers /metrics, it counts the requests both served."""
    port = free_tcp_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_process(["api", "--port", str(port)], backing_services, "api-metrics-workers.log",
                         lambda log: log.count(b"Application startup complete") >= 2, E3_API_WORKERS="2")
    try:
        auth = {"Authorization": f"Bearer {admin_token}"}
        for _ in range(40):  # a connection each: the kernel hands them to either process
            with httpx.Client(base_url=url, headers=auth) as one:
                assert one.get("/api/v1/jobs").status_code == 200
        for _ in range(6):
            with httpx.Client(base_url=url, headers=auth) as one:
                text = one.get("/metrics").text
            counts = {s.labels["route"]: s.value for f in text_string_to_metric_families(text) for s in f.samples
                      if s.name == "e3_http_request_duration_seconds_count" and s.labels["method"] == "GET"}
            assert counts.get("/api/v1/jobs") == 40, counts
    finally:
        stop_process(proc)


def test_redis_unreachable_fails_the_scrape_with_a_503_rather_than_drop_the_controllers_half(client, monkeypatch):
    from e3.api.routers import metrics

    monkeypatch.setattr(metrics, "_redis", lambda url: redis.Redis.from_url("redis://127.0.0.1:1/0",
                                                                            socket_connect_timeout=1))
    r = client.get("/metrics")
    assert r.status_code == 503 and r.json()["code"] == "service_unavailable"


def test_the_api_removes_its_metrics_folder_when_stopped_and_a_killed_runs_at_the_next_start(backing_services):
    def folders(proc) -> list[Path]:
        return list(Path(tempfile.gettempdir()).glob(f"{PREFIX}{proc.pid}-*"))

    started = []
    for signum in (signal.SIGTERM, signal.SIGKILL):
        port = free_tcp_port()
        proc = start_process(["api", "--port", str(port)], backing_services, f"api-folder-{signum}.log",
                             lambda log: b"Application startup complete" in log)
        started.append(proc)
        assert len(folders(proc)) == 1
        proc.send_signal(signum)
        proc.wait(20)
    stopped, killed = started
    assert stopped.returncode == -signal.SIGTERM and not folders(stopped)  # still ends as SIGTERM's
    assert folders(killed)  # nobody could remove it...
    port = free_tcp_port()
    after = start_process(["api", "--port", str(port)], backing_services, "api-folder-after.log",
                          lambda log: b"Application startup complete" in log)
    try:
        assert not folders(killed)  # ...until the next `e3 api` started
    finally:
        stop_process(after)
