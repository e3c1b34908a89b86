"""Small helpers shared by tests (not fixtures)."""

import time
from pathlib import Path


def wait_for_job(client, job_id: str, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        job = client.get(f"/api/v1/jobs/{job_id}").json()
        if job["state"] in ("succeeded", "failed"):
            return job
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id} still {job['state']} after {timeout}s: {job}")
        time.sleep(0.1)


REPO_ROOT = Path(__file__).resolve().parents[2]
