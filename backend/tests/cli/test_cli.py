"""The `e3` CLI as a CI pipeline runs it: a real process talking HTTP to a real API and worker."""

import json
import os
import subprocess
import sys
from collections import defaultdict


from e3 import catalog


def test_cluster_create_apply_wait_and_read_the_placement(e3, tmp_path):
    created = json.loads(e3("cluster", "create", "--generator", "fattree", "--servers", "3",
                            "--type", "type1-smartnic", "--output", "json").stdout)
    assert (created["name"], created["nodes"]) == ("fattree-3-type1-smartnic", 6)
    app_file = tmp_path / "iot-ts.yaml"
    app_file.write_text(catalog.template_yaml("iot-ts"))
    applied = json.loads(e3("apply", "-f", str(app_file), "--cluster", "fattree-3-type1-smartnic", "--wait",
                            "--output", "json").stdout)
    assert applied["state"] == "succeeded" and applied["version"] == 1
    # No agent runs these nodes: placed, and said to execute nothing (not "running").
    assert applied["status"] == "placed" and "no agent runs" in applied["status_reason"]
    placement = json.loads(e3("placement", applied["deployment_id"], "--output", "json").stdout)
    assert len(placement) == 108
    servers = defaultdict(set)
    for inst in placement:
        servers[(inst["dag_node"], inst["shard"])].add(inst["server"])
    assert all(len(s) == 2 for s in servers.values())  # each backup off its primary's server

    exported = e3("export", "iot-ts").stdout
    assert exported.startswith("apiVersion: e3/v1")
    listed = json.loads(e3("get", "deployments", "--output", "json").stdout)
    assert [(d["state"], d["status"]) for d in listed] == [("placed", "placed")]
    table = e3("get", "clusters").stdout
    assert "fattree-3-type1-smartnic" in table


def test_apply_exits_non_zero_when_placement_fails(e3, tmp_path):
    e3("cluster", "create", "--generator", "fattree", "--servers", "2", "--type", "wimpy", "--name", "tiny")
    app_file = tmp_path / "app.yaml"
    app_file.write_text(catalog.template_yaml("iot-ts"))
    proc = e3("apply", "-f", str(app_file), "--cluster", "tiny", "--wait", check=False)
    assert proc.returncode == 1
    assert "failed" in proc.stderr and "sql" in proc.stderr and "out of memory" in proc.stderr


def test_apply_reports_the_field_at_fault(e3, tmp_path):
    bad = catalog.template("iot-ts")
    bad["spec"]["nodes"][1]["constraints"] = {"platform": "smartnic"}
    app_file = tmp_path / "bad.json"
    app_file.write_text(json.dumps(bad))
    proc = e3("apply", "-f", str(app_file), "--cluster", "any", check=False)
    assert proc.returncode == 1
    assert "spec.nodes[1].constraints.platform" in proc.stderr


def test_token_create_and_scopes_are_enforced(e3, tmp_path):
    created = json.loads(e3("token", "create", "--scope", "read", "--name", "ci-read", "--output", "json").stdout)
    assert created["scopes"] == ["read"] and created["token"].startswith("e3_")
    assert e3("get", "jobs", token=created["token"]).returncode == 0
    app_file = tmp_path / "app.yaml"
    app_file.write_text(catalog.template_yaml("nfv-fin"))
    proc = e3("apply", "-f", str(app_file), "--cluster", "x", token=created["token"], check=False)
    assert proc.returncode == 1 and "lacks the 'write' scope" in proc.stderr


def test_usage_errors_exit_non_zero_with_a_message(e3, tmp_path):
    proc = e3("get", "widgets", check=False)
    assert proc.returncode == 2 and "unknown kind 'widgets'" in proc.stderr
    proc = e3("apply", "-f", str(tmp_path / "missing.yaml"), "--cluster", "c", check=False)
    assert proc.returncode == 1 and "no such file" in proc.stderr
    proc = e3("cluster", "create", "--generator", "fattree", "--servers", "0", "--type", "beefy", check=False)
    assert proc.returncode == 1 and "servers" in proc.stderr


def test_without_url_the_cli_says_how_to_connect(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("E3_URL", "E3_TOKEN")}
    proc = subprocess.run([sys.executable, "-m", "e3", "get", "clusters"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "make up" in proc.stderr


def test_bootstrap_token_writes_straight_to_the_database(backing_services, anon_client, tmp_path):
    env = dict(os.environ, DATABASE_URL=backing_services["database_url"])
    proc = subprocess.run([sys.executable, "-m", "e3", "bootstrap-token", "--name", "first", "--scope", "admin"],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    token = proc.stdout.strip()
    r = anon_client.get("/api/v1/audit", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    assert r.json()["items"][0]["action"] == "token.create" and r.json()["items"][0]["token_name"] == "system"
