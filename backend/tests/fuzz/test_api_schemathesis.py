"""Schemathesis (pinned in the dev dependencies) against a real `e3 api` process on real Postgres, Redis and a
Celery worker: every operation of the OpenAPI document through all four phases (examples, coverage, fuzzing,
stateful), at least MIN_CASES generated requests. A 5xx, a response that breaks its documented schema or
content type, or a request that takes longer than REQUEST_TIMEOUT_S (a hang) fails the test with
schemathesis's own report (the failing request as a curl line)."""

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from helpers import start_process, stop_process

from e3.core.embedded import free_tcp_port

MIN_CASES = 1000
REQUEST_TIMEOUT_S = 10
CHECKS = "not_a_server_error,response_schema_conformance,content_type_conformance"
# Streams never end by design: a fuzzer's request to one would only wait out its timeout.
STREAMS = r"/stream$|/ws$"


def _schemathesis() -> list[str]:
    """The pinned CLI beside this interpreter (E3_SCHEMATHESIS: another one)."""
    return [os.environ.get("E3_SCHEMATHESIS") or str(Path(sys.executable).with_name("schemathesis"))]


def _another_database(redis_url: str) -> str:
    """The URL of the next of the server's 16 numbered databases (Redis's default count)."""
    parts = urlsplit(redis_url)
    return urlunsplit(parts._replace(path=f"/{(int(parts.path.strip('/') or 0) + 1) % 16}"))


def _redis_keys(redis_url: str) -> set[bytes]:
    client = redis.Redis.from_url(redis_url)
    try:
        return set(client.scan_iter(count=1000))
    finally:
        client.close()


@pytest.fixture
def fuzz_target(backing_services):
    """An `e3 api` and a Celery worker of their own, on a Redis database of their own (same server, same
    Postgres): what the fuzzer changes in Redis (it sets the orchestrator's mode; any job it queues, any job
    lease) stays there, that database is emptied afterwards, and no job of its is still running when the
    next test starts (both processes are stopped). Postgres needs nothing: every test starts truncated."""
    services = dict(backing_services, redis_url=_another_database(backing_services["redis_url"]))
    port = free_tcp_port()
    worker = start_process(["worker", "--concurrency", "1"], services, "fuzz-worker.log", lambda log: b"ready." in log)
    try:
        api = start_process(["api", "--port", str(port)], services, "fuzz-api.log",
                            lambda log: b"Uvicorn running on" in log)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            stop_process(api)
    finally:
        stop_process(worker)
        client = redis.Redis.from_url(services["redis_url"])
        client.flushdb()
        client.close()


def test_every_operation_answers_within_its_schema_and_never_5xx(fuzz_target, backing_services, admin_token,
                                                                 tmp_path):
    shared_keys = _redis_keys(backing_services["redis_url"])
    report = tmp_path / "report"
    proc = subprocess.run(
        [*_schemathesis(), "run", f"{fuzz_target}/openapi.json", "--header", f"Authorization: Bearer {admin_token}",
         "--checks", CHECKS, "--phases", "examples,coverage,fuzzing,stateful", "--max-examples", "25",
         "--seed", "19", "--workers", "1", "--request-timeout", str(REQUEST_TIMEOUT_S),
         "--exclude-path-regex", STREAMS, "--report", "ndjson", "--report-dir", str(report),
         "--suppress-health-check", "all", "--no-color"],
        capture_output=True, text=True, timeout=1500)
    print(proc.stdout[-20000:])
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-3000:]
    generated = re.search(r"(\d+) generated", proc.stdout)
    assert generated and int(generated.group(1)) >= MIN_CASES, proc.stdout[-3000:]
    # ... and the Redis the other tests share is as it was (the fuzzer sets the orchestrator's mode, for one)
    assert _redis_keys(backing_services["redis_url"]) == shared_keys
