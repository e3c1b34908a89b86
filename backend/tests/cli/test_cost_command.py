"""`e3 cost` as a CI pipeline runs it: a real process talking HTTP to a real API."""

import json

import pytest

from e3.energy.cost import HOURS_PER_YEAR, SECONDS_PER_YEAR

WHAT_IF = "servers:\n  type2-smartnic: 2\nthroughput_rps: 1000\n"


def test_what_if_from_a_yaml_file(e3, tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(WHAT_IF)
    answer = json.loads(e3("cost", "--what-if", str(plan), "--years", "3", "--output", "json").stdout)
    assert answer["capex"]["usd"] == 13500 and answer["power_watts"] == {"value": 504, "source": "model"}
    assert [p["years"] for p in answer["points"]] == [1, 2, 3]
    expected = 1000 * 3 * SECONDS_PER_YEAR / (13500 + 0.504 * 3 * HOURS_PER_YEAR * 0.0733)
    assert answer["points"][2]["requests_per_usd"] == pytest.approx(expected)
    table = e3("cost", "--what-if", str(plan), "--price", "0.2").stdout
    assert "$13,500 = 2 x type2-smartnic at $6,750 (source: model)" in table
    assert "504 W (source: model)" in table and "0.2 $/kWh (source: request)" in table
    assert "requests_per_usd" in table and f"${13500 + 0.504 * HOURS_PER_YEAR * 0.2:,.2f}" in table  # year 1


def test_what_if_with_a_bad_field_exits_1_naming_it(e3, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"servers": {"custom": 1}, "throughput_rps": 10}))
    proc = e3("cost", "--what-if", str(plan), check=False)
    assert proc.returncode == 1 and "servers.custom" in proc.stderr and "unknown server type" in proc.stderr


def test_a_cluster_without_live_figures_exits_1_saying_why(e3):
    e3("cluster", "create", "--generator", "fattree", "--servers", "2", "--type", "type1-smartnic", "--name", "quiet")
    proc = e3("cost", "quiet", "--output", "json", check=False)
    assert proc.returncode == 1 and "no node of cluster 'quiet' is reporting" in proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["capex"] == {"usd": 9300, "source": "model",
                               "parts": [{"server_type": "type1-smartnic", "count": 2, "unit_usd": 4650}]}
    refused = e3("cost", "quiet", "--years", "-1", check=False)
    assert refused.returncode == 1 and "years" in refused.stderr


def test_a_cluster_or_a_what_if_not_both(e3, tmp_path):
    assert e3("cost", check=False).returncode == 2
    plan = tmp_path / "plan.yaml"
    plan.write_text(WHAT_IF)
    assert e3("cost", "quiet", "--what-if", str(plan), check=False).returncode == 2
