"""Rolling a running deployment to another version on three real agents: the new version serves before the old
one goes; a version its agents refuse is removed again and the running one serves on."""

import copy
import uuid

from helpers import wait_for_job, wait_until
from local_trio import APP, KEY, ask, running
from sqlalchemy import select

from e3.core.db import session_scope
from e3.models import Application, ApplicationVersion


def _version(config: dict) -> dict:
    app = copy.deepcopy(APP)
    app["spec"]["nodes"][0]["config"] = config
    return app


def _refused_by_agents(version: int) -> None:
    """Make a stored version's gateway config one its agents refuse (no keys). The API refuses such a config at
    save, so it is written straight to the database: it stands for what only an agent can find wrong."""
    with session_scope() as session:
        row = session.scalar(select(ApplicationVersion).join(Application)
                             .where(Application.name == APP["metadata"]["name"], ApplicationVersion.version == version))
        spec = copy.deepcopy(row.spec)
        spec["spec"]["nodes"][0]["config"] = {"rate": "1000"}
        row.spec = spec


def test_rolling_to_a_new_version_and_to_one_the_agents_refuse(client, trio):
    old_id = trio["deployment_id"]
    assert client.put("/api/v1/applications/mig-kv", json=_version({"keys": "new-key", "rate": "1000000",
                                                                     "burst": "1000000"})).status_code == 200
    r = client.post(f"/api/v1/deployments/{old_id}/rollout", json={"version": 2}).json()
    job = wait_for_job(client, r["job_id"], timeout=90)
    assert job["state"] == "succeeded", job
    assert client.get(f"/api/v1/deployments/{old_id}").status_code == 404
    new = wait_until(lambda: running(client, r["deployment_id"]), timeout=30, what="the new version running")
    assert ask(new["gw"], "new-key c\nPUT colour green") == (True, "ALLOW\nOK")
    assert ask(new["gw"], f"{KEY} c\nGET colour") == (False, "UNAUTHORIZED")  # the old version's key is gone
    shown = client.get(f"/api/v1/deployments/{r['deployment_id']}").json()
    assert (shown["version"], shown["status"]) == (2, "running")

    assert client.put("/api/v1/applications/mig-kv", json=_version({"keys": "third-key"})).status_code == 200
    _refused_by_agents(3)
    refused = client.post(f"/api/v1/deployments/{r['deployment_id']}/rollout", json={"version": 3}).json()
    job = wait_for_job(client, refused["job_id"], timeout=90)
    assert job["state"] == "failed", job
    assert job["error"]["code"] in ("rollout_failed", "rollout_degraded")
    assert "bad_config" in job["error"]["message"] and "keys" in job["error"]["message"]
    assert client.get(f"/api/v1/deployments/{refused['deployment_id']}").status_code == 404  # removed again
    kept = client.get(f"/api/v1/deployments/{r['deployment_id']}").json()
    assert (kept["version"], kept["status"]) == (2, "running")
    assert ask(new["gw"], "new-key c\nGET colour") == (True, "ALLOW\nVALUE green")
    assert uuid.UUID(refused["deployment_id"]) != uuid.UUID(r["deployment_id"])
