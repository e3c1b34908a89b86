"""Waiting on the API for a job to end, and for a deployment to be placed and running."""

import time
from collections.abc import Callable

from e3.client.api import Api, ClientError

JOB_ENDED = ("succeeded", "failed")
UNSETTLED = ("placing", "deploying")  # deployment statuses that change without anyone acting


def wait_for_job(api: Api, job_id: str, on_update: Callable[[dict], None] | None = None,
                 interval: float = 0.5) -> dict:
    """Poll a job until it ends; `on_update(job)` after each read (e.g. to draw its progress)."""
    while True:
        job = api.get(f"/api/v1/jobs/{job_id}")
        if on_update is not None:
            on_update(job)
        if job["state"] in JOB_ENDED:
            return job
        time.sleep(interval)


def place(api: Api, application: str, cluster: str, algorithm: str = "hcm") -> str:
    """Deploy `application` on `cluster` and wait for its placement; the deployment's id, ClientError if it failed."""
    created = api.post("/api/v1/deployments", json={"application": application, "cluster": cluster,
                                                    "algorithm": algorithm}).json()
    job = wait_for_job(api, created["job_id"])
    if job["state"] != "succeeded":
        raise ClientError(f"placing {application} on {cluster} failed: {job['message']}")
    return created["deployment_id"]


def wait_running(api: Api, deployment_id: str, timeout_s: float) -> list[dict]:
    """The deployment's instances once every one runs on its agent; ClientError naming one that failed, or
    when `timeout_s` passes."""
    deadline = time.monotonic() + timeout_s
    while True:
        items = api.all_pages(f"/api/v1/deployments/{deployment_id}/placement")
        failed = [i for i in items if i["state"] == "failed"]
        if failed:
            raise ClientError(f"{len(failed)} instances failed to start, e.g. on {failed[0]['node']}: {failed[0]['error']}")
        if all(i["state"] == "running" for i in items):
            return items
        if time.monotonic() > deadline:
            raise ClientError(f"deployment {deployment_id}: instances not all running after {timeout_s:.0f}s")
        time.sleep(0.5)


def wait_settled(api: Api, deployment_id: str, timeout_s: float, interval: float = 0.25) -> dict:
    """The deployment once its status no longer changes by itself (placed and every agent answered: running,
    degraded, failed, or placed on nodes no agent runs); ClientError naming its status when `timeout_s`
    passes first."""
    deadline = time.monotonic() + timeout_s
    while True:
        deployment = api.get(f"/api/v1/deployments/{deployment_id}")
        if deployment["status"] not in UNSETTLED:
            return deployment
        if time.monotonic() > deadline:
            raise ClientError(f"deployment {deployment_id} is still {deployment['status']} after {timeout_s:.0f} s"
                              + (f": {deployment['status_reason']}" if deployment["status_reason"] else ""))
        time.sleep(interval)
