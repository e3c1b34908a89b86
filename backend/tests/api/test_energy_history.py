"""Energy history over the rollups: conservation (each step's joules and requests are its rows' sums, for an
application, a cluster and a node, at the rollup step and coarser), power per step, gaps, sources, retention,
and the refusals naming the field."""

import math
import random
import uuid
from collections import defaultdict
from datetime import datetime, timedelta, timezone

import pytest
from helpers import insert_rollups
from sqlalchemy import func, select

from e3.core.db import session_scope
from e3.models import energy_rollups
from e3.services.energy_history import drop_expired_rollups

SOURCES = ["model", "rapl", "ipmi-split"]


def _cluster(client, name: str, servers: int) -> list[dict]:
    """The new cluster's nodes, each with its cluster's id."""
    r = client.post("/api/v1/clusters", json={"generator": "fattree", "servers": servers,
                                              "server_type": "type1-smartnic", "name": name})
    assert r.status_code == 201, r.json()
    return [dict(node, cluster_id=r.json()["id"])
            for node in client.get(f"/api/v1/clusters/{name}/nodes").json()["items"]]


def _base() -> datetime:
    """A 10-minute boundary an hour ago: whole steps of 10 s, 60 s and 300 s start there."""
    now = datetime.now(timezone.utc)
    return datetime.fromtimestamp(math.floor(now.timestamp() / 600) * 600, timezone.utc) - timedelta(hours=1)


def _rollups(rng, cluster_id, nodes, base, buckets, applications=("shop",)) -> list[dict]:
    """Per 10 s bucket: each node's row and two instance rows per application on it, with random figures (the
    instances' joules are not the node's split: a scope summing the wrong rows would show)."""
    rows = []
    for b in range(buckets):
        ts = base + timedelta(seconds=10 * b)
        for n, node in enumerate(nodes):
            source = SOURCES[(n + b // 7) % len(SOURCES)]
            rows.append(dict(ts=ts, cluster_id=cluster_id, node_id=node["id"], joules=rng.uniform(50, 900),
                             requests=rng.randrange(0, 10**6), seconds=rng.uniform(5, 10),
                             watts_max=rng.uniform(90, 200), source=source))
            for app in applications:
                for _ in range(2):
                    rows.append(dict(ts=ts, cluster_id=cluster_id, node_id=node["id"], instance_id=uuid.uuid4(),
                                     application=app, joules=rng.uniform(0, 300), requests=rng.randrange(0, 10**5),
                                     counts_requests=rng.random() < 0.5, seconds=rng.uniform(5, 10),
                                     watts_max=rng.uniform(0, 50), source=source))
    return rows


def _expected(rows, counted, step_s) -> dict[float, tuple[float, int, dict]]:
    """Per step start (epoch s): the rows' joules and joules per source, and the counted rows' requests, summed
    here in Python."""
    out = defaultdict(lambda: [0.0, 0, defaultdict(float)])
    for r in rows:
        step = math.floor(r["ts"].timestamp() / step_s) * step_s
        out[step][0] += r["joules"]
        out[step][2][r["source"]] += r["joules"]
    for r in counted:
        out[math.floor(r["ts"].timestamp() / step_s) * step_s][1] += r["requests"]
    return out


def _check_conserved(answer, rows, step_s, counted=None):
    """`rows`: those whose energy the scope sums; `counted`: those whose requests it counts (default: the same)."""
    counted = rows if counted is None else counted
    expected = _expected(rows, counted, step_s)
    assert answer["step_s"] == step_s and answer["rollup_step_s"] == 10
    seen = 0
    for point in answer["points"]:
        step = datetime.fromisoformat(point["ts"]).timestamp()
        if step not in expected:
            assert point["joules"] is None and point["requests"] is None and point["sources"] == []
            continue
        joules, requests, by_source = expected[step]
        seen += 1
        assert point["joules"] == pytest.approx(joules, rel=1e-9) and point["requests"] == requests
        assert point["joules_by_source"] == pytest.approx(dict(by_source), rel=1e-9)
        assert point["sources"] == sorted(by_source)
        assert point["source"] == (next(iter(by_source)) if len(by_source) == 1 else "mixed")
        assert point["joules_per_request"] == (pytest.approx(joules / requests, rel=1e-9) if requests else None)
    assert seen == len(expected)  # every step with rows is in the window
    total = sum(r["joules"] for r in rows)
    assert answer["totals"]["joules"] == pytest.approx(total, rel=1e-9)
    assert answer["totals"]["requests"] == sum(r["requests"] for r in counted)


def test_every_scope_conserves_its_rows_joules_and_requests_per_step(client):
    east, west = _cluster(client, "east", 2), _cluster(client, "west", 1)
    east_id, west_id = east[0]["cluster_id"], west[0]["cluster_id"]
    base, rng = _base(), random.Random(20)
    rows = (_rollups(rng, east_id, east, base, 36, ("shop", "other"))
            + _rollups(rng, west_id, west, base, 36))
    insert_rollups(rows)
    window = {"from": (base - timedelta(minutes=5)).isoformat(), "to": (base + timedelta(minutes=10)).isoformat()}
    # (energy rows, request rows): an application's instances, its requests those entering it (entry primaries);
    # a cluster's nodes, its requests its applications'; a node's own row for both
    scopes = {
        "/api/v1/applications/shop/energy": (lambda r: r.get("application") == "shop",
                                             lambda r: r.get("application") == "shop" and r["counts_requests"]),
        "/api/v1/clusters/east/energy": (lambda r: r["cluster_id"] == east_id and r.get("instance_id") is None,
                                         lambda r: r["cluster_id"] == east_id and r.get("counts_requests")),
        f"/api/v1/nodes/{east[1]['id']}/energy": (lambda r: r["node_id"] == east[1]["id"]
                                                  and r.get("instance_id") is None, None),
    }
    for path, (belongs, counts) in scopes.items():
        mine = [r for r in rows if belongs(r)]
        counted = None if counts is None else [r for r in rows if counts(r)]
        for step in (10, 60, 300):
            r = client.get(path, params={**window, "step": step})
            assert r.status_code == 200, r.json()
            answer = r.json()
            assert len(answer["points"]) == 900 // step and answer["points"][0]["joules"] is None  # before base
            _check_conserved(answer, mine, step, counted)
    in_east = client.get("/api/v1/applications/shop/energy", params={**window, "step": 60, "cluster": "east"})
    shop_east = [r for r in rows if r.get("application") == "shop" and r["cluster_id"] == east_id]
    _check_conserved(in_east.json(), shop_east, 60, [r for r in shop_east if r["counts_requests"]])
    assert in_east.json()["scope"] == {"kind": "application", "name": "shop", "cluster": "east", "node_id": None}
    node = client.get(f"/api/v1/nodes/{east[1]['id']}/energy", params=window).json()
    assert node["scope"] == {"kind": "node", "name": east[1]["name"], "cluster": "east", "node_id": east[1]["id"]}
    assert node["step_s"] == 10 and node["retention_days"] == 30  # default: the finest step within 500 points


def test_watts_per_step_from_the_rollup_buckets(client):
    nodes = _cluster(client, "east", 1)
    cluster_id, host, nic = nodes[0]["cluster_id"], nodes[0]["id"], nodes[1]["id"]
    base = _base()
    later = base + timedelta(seconds=10)
    insert_rollups([
        # bucket 1: host 100 J over 10 s (10 W) + NIC 50 J over 5 s (10 W) = 20 W (not 150 J / 15 s)
        dict(ts=base, cluster_id=cluster_id, node_id=host, joules=100.0, requests=40, watts_max=42.0, source="rapl"),
        dict(ts=base, cluster_id=cluster_id, node_id=nic, joules=50.0, requests=0, seconds=5.0, watts_max=11.0,
             source="rapl"),
        # bucket 2: host alone, 300 J over 10 s = 30 W
        dict(ts=later, cluster_id=cluster_id, node_id=host, joules=300.0, requests=60, watts_max=35.0,
             source="model"),
    ])
    window = {"from": base.isoformat(), "to": (base + timedelta(seconds=30)).isoformat(), "step": 30}
    (point,) = client.get("/api/v1/clusters/east/energy", params=window).json()["points"]
    assert point["watts_mean"] == pytest.approx(25.0) and point["watts_max"] == pytest.approx(30.0)
    # a cluster's requests are its applications' (entry rows); it has none here, only nodes' rows
    assert point["joules"] == 450.0 and point["requests"] == 0 and point["seconds"] == 25.0
    assert point["joules_per_request"] is None and point["source"] == "mixed"
    assert point["joules_by_source"] == {"model": 300.0, "rapl": 150.0}
    (host_point,) = client.get(f"/api/v1/nodes/{host}/energy", params=window).json()["points"]
    assert host_point["watts_mean"] == pytest.approx(20.0) and host_point["watts_max"] == 42.0
    assert host_point["source"] == "mixed" and host_point["sources"] == ["model", "rapl"]
    (nic_point,) = client.get(f"/api/v1/nodes/{nic}/energy", params=window).json()["points"]
    assert nic_point["watts_mean"] == pytest.approx(10.0) and nic_point["source"] == "rapl"


def test_an_application_is_known_by_its_definition_or_its_rollups(client):
    nodes = _cluster(client, "east", 1)
    spec = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "defined"},
            "spec": {"nodes": [{"id": "db", "service": "kvs", "shards": 1}], "edges": []}}
    assert client.post("/api/v1/applications", json=spec).status_code == 201
    answer = client.get("/api/v1/applications/defined/energy").json()
    assert all(p["joules"] is None for p in answer["points"]) and answer["totals"]["joules"] is None
    insert_rollups([dict(ts=_base(), cluster_id=nodes[0]["cluster_id"], node_id=nodes[0]["id"],
                         instance_id=uuid.uuid4(), application="gone", joules=5.0, requests=1, source="model")])
    assert client.get("/api/v1/applications/gone/energy", params={"from": _base().isoformat()}).json()[
        "totals"]["joules"] == 5.0


def test_unknown_scopes_are_404(client):
    _cluster(client, "east", 1)
    for path in ("/api/v1/applications/nope/energy", "/api/v1/clusters/nope/energy",
                 f"/api/v1/nodes/{uuid.uuid4()}/energy"):
        r = client.get(path)
        assert r.status_code == 404 and "not found" in r.json()["message"], path
    insert_rollups([dict(ts=_base(), cluster_id=uuid.uuid4(), node_id=uuid.uuid4(), instance_id=uuid.uuid4(),
                         application="shop", joules=5.0, requests=1, source="model")])
    r = client.get("/api/v1/applications/shop/energy", params={"cluster": "nope"})
    assert r.status_code == 404 and "cluster 'nope'" in r.json()["message"]


@pytest.mark.parametrize("params, field", [
    ({"from": "2026-11-26T10:00:00Z", "to": "2026-11-26T09:00:00Z"}, "from"),
    ({"step": 15}, "step"),
    ({"step": 5}, "step"),
    ({"step": "ten"}, "step"),
    ({"from": "yesterday"}, "from"),
    ({"to": "2026-11-26T10:00:00"}, "to"),
])
def test_bad_queries_are_422_naming_the_field(client, params, field):
    _cluster(client, "east", 1)
    r = client.get("/api/v1/clusters/east/energy", params=params)
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == field, r.json()


def test_a_range_past_the_retention_or_with_too_many_points_is_422(client):
    _cluster(client, "east", 1)
    now = datetime.now(timezone.utc)
    r = client.get("/api/v1/clusters/east/energy", params={"from": (now - timedelta(days=31)).isoformat()})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "from"
    assert "30 days" in r.json()["message"]
    r = client.get("/api/v1/clusters/east/energy", params={"from": (now - timedelta(days=1)).isoformat(), "step": 10})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "step" and "2000" in r.json()["message"]


def test_rollups_older_than_the_retention_are_dropped(client):
    nodes = _cluster(client, "east", 1)
    now = datetime.now(timezone.utc)
    row = dict(cluster_id=nodes[0]["cluster_id"], node_id=nodes[0]["id"], joules=1.0, requests=1, source="model")
    insert_rollups([dict(row, ts=now - timedelta(days=31)), dict(row, ts=now - timedelta(days=30, seconds=10)),
                    dict(row, ts=now - timedelta(days=29)), dict(row, ts=now - timedelta(days=1))])
    with session_scope() as session:
        assert drop_expired_rollups(session, now) == 2
        assert drop_expired_rollups(session, now) == 0
        assert drop_expired_rollups(session, now, retention_days=7) == 1
    with session_scope() as session:
        assert session.scalar(select(func.count()).select_from(energy_rollups)) == 1
