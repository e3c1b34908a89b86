"""`e3 plan` as an operator or a CI pipeline runs it: a real process talking HTTP to a real API."""

import json

import httpx

from e3 import catalog


def test_a_plan_from_a_yaml_file_as_a_table_and_as_json(e3, tmp_path):
    spec = tmp_path / "app.yaml"
    spec.write_text(catalog.template_yaml("nfv-fin"))
    proc = e3("plan", "-f", str(spec), "--load", "1e6", "--years", "5", "--server-types", "wimpy,type2-smartnic",
              "--output", "json")
    answer = json.loads(proc.stdout)
    best = answer["plans"][0]
    assert best["servers"] == {"wimpy": 4} and best["feasible"] and best["capex_usd"] == 4 * 2209
    assert answer["years"] == [1, 2, 3, 4, 5] and answer["source"] == "model"
    table = e3("plan", "-f", str(spec), "--load", "1e6", "--years", "2", "--server-types", "wimpy",
               "--price-per-kwh", "0.1").stdout
    assert "4 x wimpy" in table and "$8,836" in table and "req/$ 2y" in table and "req/$ 3y" not in table
    assert "no (see below)" in table and "3 x wimpy: placement fails" in table  # 3 cannot hold it
    assert "assumptions:" in table and "$0.1/kWh (given in the request)" in table


def test_a_stored_application_by_name(e3, api_server, admin_token):
    stored = httpx.post(f"{api_server}/api/v1/applications", json=catalog.template("nfv-fin"),
                        headers={"Authorization": f"Bearer {admin_token}"})
    assert stored.status_code == 201, stored.text
    answer = json.loads(e3("plan", "--app", "nfv-fin", "--load", "1e5", "--server-types", "beefy",
                           "--output", "json").stdout)
    assert answer["applications"] == [{"name": "nfv-fin", "load_rps": 1e5}] and answer["plans"][0]["feasible"]


def test_errors_exit_non_zero_saying_why(e3, tmp_path):
    spec = tmp_path / "app.yaml"
    spec.write_text(catalog.template_yaml("iot-ts"))
    unknown = e3("plan", "--app", "nowhere", "--load", "1e6", check=False)
    assert unknown.returncode == 1 and "applications[0].name" in unknown.stderr and "not found" in unknown.stderr
    bad = e3("plan", "-f", str(spec), "--load", "1e6", "--server-types", "huge", check=False)
    assert bad.returncode == 1 and "server_types[0]" in bad.stderr
    none = e3("plan", "-f", str(spec), "--load", "1e7", "--server-types", "beefy", "--max-servers", "3",
              check=False)
    assert none.returncode == 1 and "no candidate cluster carries the load" in none.stderr
    assert "infeasible:" in none.stdout and "3 x beefy: " in none.stdout
    assert e3("plan", "--load", "1e6", check=False).returncode == 2
    assert e3("plan", "-f", str(tmp_path / "missing.yaml"), "--load", "1", check=False).returncode == 1
