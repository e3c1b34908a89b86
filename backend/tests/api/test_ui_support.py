"""Endpoints the UI relies on: who am I, dry-run validation, the cluster layout, and the generated client."""

import json
import subprocess
import sys

from helpers import REPO_ROOT, wait_for_job
from sqlalchemy import update

from e3 import catalog
from e3.core.db import session_scope
from e3.models import Instance


def test_me_lists_effective_scopes(anon_client, make_token):
    r = anon_client.get("/api/v1/me", headers={"Authorization": f"Bearer {make_token('write', name='editor')}"})
    assert r.json()["name"] == "editor" and r.json()["scopes"] == ["read", "write"]


def test_validate_reports_the_save_messages_without_storing(client):
    bad = catalog.template("iot-ts")
    bad["spec"]["edges"].append({"from": "ema", "to": "api"})
    r = client.post("/api/v1/applications/validate", json=bad)
    assert r.status_code == 200 and r.json()["valid"] is False
    saved = client.post("/api/v1/applications", json=bad).json()
    assert r.json()["errors"] == saved["errors"] and r.json()["message"] == saved["message"]
    ok = client.post("/api/v1/applications/validate", content=catalog.template_yaml("iot-ts").encode(),
                     headers={"Content-Type": "application/yaml"}).json()
    assert ok["valid"] and ok["instances"] == 108 and ok["spec"]["metadata"]["name"] == "iot-ts"
    assert client.get("/api/v1/applications").json()["total"] == 0


def test_layout_lists_topology_and_instances_in_columns(client, worker):
    client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 3, "server_type": "type1-smartnic",
                                          "name": "rack1"})
    client.post("/api/v1/templates/iot-ts/instantiate", json={})
    job = client.post("/api/v1/deployments", json={"application": "iot-ts", "cluster": "rack1"}).json()["job_id"]
    assert wait_for_job(client, job)["state"] == "succeeded"
    layout = client.get("/api/v1/clusters/rack1/layout").json()
    assert len(layout["racks"]) == 1 and len(layout["servers"]) == 3 and len(layout["nodes"]) == 6
    inst = layout["instances"]
    assert len(inst["id"]) == len(inst["node"]) == len(inst["replica"]) == 108
    assert layout["deployments"][0]["application"] == "iot-ts"
    assert ["api", "sql"] in layout["deployments"][0]["edges"]
    assert sum(n["used_cores"] for n in layout["nodes"]) == 42
    assert set(inst["state"]) == {"placed"} and inst["error"] == [None] * 108  # no agent runs rack1's nodes

    # The placement view draws a refused instance apart and says why: its state and the agent's NACK.
    refusal = {"code": "bad_config", "message": "engine: api_gateway: config needs keys=<k1,k2,...>"}
    with session_scope() as session:
        session.execute(update(Instance).where(Instance.id == inst["id"][0]).values(state="failed", error=refusal))
    inst = client.get("/api/v1/clusters/rack1/layout").json()["instances"]
    assert inst["state"][0] == "failed" and inst["error"][0] == refusal
    assert set(inst["state"][1:]) == {"placed"} and inst["error"][1:] == [None] * 107


def test_committed_openapi_document_matches_the_api():
    """The frontend's generated client is built from frontend/openapi.json: it must be current."""
    current = subprocess.run([sys.executable, "-m", "e3", "openapi"], capture_output=True, text=True, check=True)
    committed = (REPO_ROOT / "frontend" / "openapi.json").read_text()
    assert json.loads(current.stdout) == json.loads(committed), \
        "frontend/openapi.json is stale: run `e3 openapi --file frontend/openapi.json && npm run gen:api`"
