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

import pytest

MIN_CASES = 1000
REQUEST_TIMEOUT_S = 10
CHECKS = "not_a_server_error,response_schema_conformance,content_type_conformance"
# Streams never end by design: a fuzzer's request to one would only wait out its timeout.
STREAMS = r"/stream$|/ws$"


def _schemathesis() -> list[str]:
    """The pinned CLI beside this interpreter (E3_SCHEMATHESIS: another one)."""
    return [os.environ.get("E3_SCHEMATHESIS") or str(Path(sys.executable).with_name("schemathesis"))]


@pytest.fixture
def orchestrator_mode_restored(backing_services):
    """The fuzzer sets the orchestrator's mode (kept in Redis, which no test truncates): unset it afterwards, so
    the tests after it find the controller's default."""
    import redis

    from e3.services.orchestrator_mode import MODE_KEY

    yield
    redis.Redis.from_url(backing_services["redis_url"]).delete(MODE_KEY)


def test_every_operation_answers_within_its_schema_and_never_5xx(api_server, worker, admin_token, tmp_path,
                                                                 orchestrator_mode_restored):
    report = tmp_path / "report"
    proc = subprocess.run(
        [*_schemathesis(), "run", f"{api_server}/openapi.json", "--header", f"Authorization: Bearer {admin_token}",
         "--checks", CHECKS, "--phases", "examples,coverage,fuzzing,stateful", "--max-examples", "25",
         "--seed", "19", "--workers", "1", "--request-timeout", str(REQUEST_TIMEOUT_S),
         "--exclude-path-regex", STREAMS, "--report", "ndjson", "--report-dir", str(report),
         "--suppress-health-check", "all", "--no-color"],
        capture_output=True, text=True, timeout=1500)
    print(proc.stdout[-20000:])
    assert proc.returncode == 0, proc.stdout[-20000:] + proc.stderr[-3000:]
    generated = re.search(r"(\d+) generated", proc.stdout)
    assert generated and int(generated.group(1)) >= MIN_CASES, proc.stdout[-3000:]
