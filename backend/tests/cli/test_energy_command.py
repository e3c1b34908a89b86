"""`e3 energy` as a CI pipeline runs it: a real process talking HTTP to a real API over rollups in Postgres."""

import csv
import io
import json
import math
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from helpers import insert_rollups
from sqlalchemy import select

from e3.core.db import session_scope
from e3.models import Cluster, ComputeNode


def _cluster_with_rollups(e3) -> tuple[str, datetime]:
    """Cluster `east` (one type1-smartnic server), with rollups in two steps of a minute ten minutes ago: the
    host's and an instance of `shop`'s. Returns the host's id and the first step's start."""
    e3("cluster", "create", "--generator", "fattree", "--servers", "1", "--type", "type1-smartnic", "--name", "east")
    with session_scope() as session:
        cluster = session.scalar(select(Cluster).where(Cluster.name == "east"))
        host = str(session.scalar(select(ComputeNode.id).where(ComputeNode.cluster_id == cluster.id,
                                                              ComputeNode.name.endswith("/host"))))
    now = datetime.now(timezone.utc)
    start = datetime.fromtimestamp(math.floor(now.timestamp() / 60) * 60, timezone.utc) - timedelta(minutes=10)
    row = dict(cluster_id=cluster.id, node_id=host)
    insert_rollups([
        dict(row, ts=start, joules=600.0, requests=100, watts_max=70.0, source="rapl"),
        dict(row, ts=start + timedelta(seconds=10), joules=400.0, requests=100, watts_max=50.0, source="rapl"),
        dict(row, ts=start + timedelta(seconds=60), joules=300.0, requests=0, watts_max=40.0, source="model"),
        dict(row, ts=start, instance_id=uuid.uuid4(), application="shop", joules=120.0, requests=60,
             counts_requests=True, source="rapl"),
    ])
    return host, start


def test_json_is_the_apis_answer_and_csv_has_a_header_and_a_row_per_step(e3):
    host, start = _cluster_with_rollups(e3)
    until = (start + timedelta(minutes=3)).isoformat()
    answer = json.loads(e3("energy", "--node", host, "--since", start.isoformat(), "--until", until, "--step", "60",
                           "--output", "json").stdout)
    assert answer["scope"]["kind"] == "node" and answer["step_s"] == 60
    first, second, third = answer["points"]
    assert (first["joules"], first["requests"], first["joules_per_request"]) == (1000.0, 200, 5.0)
    assert first["watts_mean"] == pytest.approx(50.0) and first["watts_max"] == 70.0
    assert second["source"] == "model" and second["joules_per_request"] is None and third["joules"] is None
    rows = list(csv.reader(io.StringIO(e3("energy", "--node", host, "--since", start.isoformat(), "--until", until,
                                          "--step", "60", "--output", "csv").stdout)))
    assert rows[0] == ["ts", "joules", "requests", "seconds", "watts_mean", "watts_max", "joules_per_request",
                       "source", "sources"]
    assert len(rows) == 4 and float(rows[1][1]) == 1000.0 and rows[1][2] == "200" and rows[1][8] == "rapl"
    assert rows[3][1:] == ["", "", "", "", "", "", "", ""]  # a step without rollups: a gap


def test_table_of_an_application_since_a_duration(e3):
    _cluster_with_rollups(e3)
    out = e3("energy", "shop", "--since", "1h", "--step", "60").stdout
    assert "energy of application shop" in out and "60 s steps" in out and "J/req" in out
    assert "total: 120 J, 60 requests, 2 J/req (sources: rapl)" in out
    filtered = e3("energy", "shop", "--cluster", "east", "--since", "30m", "--output", "json").stdout
    assert json.loads(filtered)["scope"]["cluster"] == "east" and json.loads(filtered)["totals"]["joules"] == 120.0
    cluster = json.loads(e3("energy", "--cluster", "east", "--since", "2h", "--output", "json").stdout)
    assert cluster["totals"]["joules"] == 1300.0 and cluster["totals"]["requests"] == 60  # entering its applications


def test_exactly_one_scope(e3):
    for args in ((), ("shop", "--node", str(uuid.uuid4())), ("--cluster", "east", "--node", str(uuid.uuid4()))):
        proc = e3("energy", *args, check=False)
        assert proc.returncode == 2 and "exactly one of APP, --cluster NAME or --node ID" in proc.stderr, args


def test_refusals_exit_non_zero_naming_the_field(e3):
    _cluster_with_rollups(e3)
    proc = e3("energy", "--cluster", "east", "--step", "15", check=False)
    assert proc.returncode == 1 and "step" in proc.stderr and "multiple of the rollup step" in proc.stderr
    proc = e3("energy", "--cluster", "east", "--since", "40d", check=False)
    assert proc.returncode == 1 and "from" in proc.stderr and "retention" in proc.stderr
    proc = e3("energy", "--cluster", "east", "--since", "10m", "--until", "1h", check=False)
    assert proc.returncode == 1 and "from: is after `to`" in proc.stderr
    proc = e3("energy", "nope", check=False)
    assert proc.returncode == 1 and "application 'nope' not found" in proc.stderr
    proc = e3("energy", "--cluster", "east", "--since", "last week", check=False)
    assert proc.returncode == 2 and "--since" in proc.stderr
