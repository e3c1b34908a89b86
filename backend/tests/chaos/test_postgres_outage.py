"""Postgres stopped for 10 s under a running `e3 api`: every request is answered at once, 503 with the JSON
error body and Retry-After (never a hang, never a 500), liveness stays up, and once Postgres is back the API
answers again with everything stored before. Prints the recovery time."""

import time

import httpx
import pytest
from helpers import wait_until

pytestmark = pytest.mark.chaos

OUTAGE_S = 10.0
ANSWER_WITHIN_S = 5.0


def test_postgres_stopped_10_s_is_answered_503_then_recovers_with_nothing_lost(api_server, admin_token,
                                                                                backing_services):
    postgres = backing_services["postgres"]
    if postgres is None:
        pytest.skip("an external Postgres (E3_TEST_DATABASE_URL) is not stopped by tests")
    auth = {"Authorization": f"Bearer {admin_token}"}
    kept = httpx.post(f"{api_server}/api/v1/clusters", headers=auth, timeout=30,
                      json={"generator": "fattree", "servers": 2, "server_type": "type1-smartnic", "name": "kept"})
    assert kept.status_code == 201, kept.text

    postgres.stop()
    stopped, answers = time.monotonic(), 0
    try:
        while time.monotonic() - stopped < OUTAGE_S:
            asked = time.monotonic()
            r = httpx.get(f"{api_server}/api/v1/clusters", headers=auth, timeout=30)
            assert time.monotonic() - asked < ANSWER_WITHIN_S, "a request waited on the stopped database"
            assert r.status_code == 503, (r.status_code, r.text)
            assert r.headers["content-type"].startswith("application/json") and r.json()["code"] == "database_unavailable"
            assert int(r.headers["retry-after"]) >= 1
            assert httpx.get(f"{api_server}/healthz", timeout=5).status_code == 200
            answers += 1
            time.sleep(0.5)
    finally:
        postgres.start()
    back = time.monotonic()
    wait_until(lambda: httpx.get(f"{api_server}/api/v1/clusters", headers=auth, timeout=10).status_code == 200,
               timeout=60, what="the API answering again after Postgres came back")
    print(f"Postgres stopped {OUTAGE_S:.0f} s: {answers} requests answered 503; API answering "
          f"{time.monotonic() - back:.2f} s after Postgres was back")
    names = [c["name"] for c in httpx.get(f"{api_server}/api/v1/clusters", headers=auth).json()["items"]]
    assert "kept" in names
