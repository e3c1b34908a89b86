"""The live channel's figures from heartbeats (pure): rates, staleness, per-application and cluster aggregates."""

from datetime import datetime, timezone

import pytest

from e3.live import aggregate as agg

T0 = 1_800_000_000.0


def approx(x: float):
    return pytest.approx(x, rel=1e-5)  # figures are given to six significant digits


def _ts(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).isoformat()


def hb(node: str, t: float, watts: float = 100.0, source: str = "model", **instances) -> dict:
    """instances: id=(requests, exec_us, cpu_share)."""
    return agg.parse_heartbeat(dict(node_id=node, ts=_ts(t), queue_len=3, cpu_util=0.5, power_watts=watts,
                                    power_source=source,
                                    instances=[dict(id=i, requests=r, exec_us=e, exec_ema_us=e, cpu_share=s)
                                               for i, (r, e, s) in instances.items()]))


def _meta() -> agg.ClusterMeta:
    """App `a` (api -> db) on nodes n1 (api, its entry) and n2 (db); app `b` (one DAG node) on n2."""
    meta = agg.ClusterMeta(id="c", name="c")
    for n, idle in (("n1", 0.0), ("n2", 30.0), ("n3", 0.0)):
        meta.nodes[n] = agg.NodeMeta(id=n, name=f"s/{n}", kind="host", server="s", rack="r", core_class="beefy",
                                     idle_watts=idle)
    meta.apps["A"] = agg.AppMeta("A", "a", 1, ("api", "db"), (("api", "db"),),
                                 predicted={"p99_latency_ms": 1.5, "avg_latency_ms": 1.0, "source": "model"})
    meta.apps["B"] = agg.AppMeta("B", "b", 2, ("kv",), ())
    for iid, node, dep, app, dag, role, cores in (("i1", "n1", "A", "a", "api", "primary", 1.0),
                                                  ("i2", "n2", "A", "a", "db", "primary", 2.0),
                                                  ("i3", "n2", "B", "b", "kv", "primary", 1.0),
                                                  ("i4", "n3", "A", "a", "db", "backup", 1.0)):
        meta.instances[iid] = agg.InstanceMeta(iid, node, dep, app, dag, "svc", role, 0, 0 if role == "primary" else 1,
                                               reserved_cores=cores)
    return meta


def test_a_redis_hash_and_a_live_item_read_alike():
    from_hash = agg.parse_heartbeat({"node_id": "n1", "ts": _ts(T0), "queue_len": "7", "cpu_util": "0.25",
                                     "power_watts": "42.5", "power_source": "rapl", "rx_bytes": "10",
                                     "instances": '[{"id": "i1", "requests": 5, "exec_us": 10.0, '
                                                  '"exec_ema_us": 9.0, "cpu_share": 0.5}]'})
    assert from_hash["queue_len"] == 7 and from_hash["power_watts"] == 42.5 and from_hash["t"] == T0
    assert from_hash["instances"] == [dict(id="i1", requests=5, exec_us=10.0, exec_ema_us=9.0, cpu_share=0.5,
                                           lat_n=0, lat_avg_us=0.0, lat_p99_us=0.0)]  # an agent not measuring
    assert agg.parse_heartbeat({"node_id": "n1", "state": "down"}) is None  # a hash with only a state


def test_rates_count_the_requests_after_the_first_heartbeat_of_the_window():
    w = agg.NodeWindow()
    assert w.add(hb("n1", T0, i1=(999, 10.0, 0.5)))
    assert w.instance_stats()[0] == {}  # one heartbeat: no span yet
    for k in range(1, 11):  # 10 per 50 ms
        assert w.add(hb("n1", T0 + k * 0.05, i1=(10, 20.0, 0.5)))
    assert not w.add(hb("n1", T0 + 0.2, i1=(10, 20.0, 0.5)))  # older than the latest: ignored
    rps, exec_us = w.instance_stats()[0]["i1"]
    assert rps == approx(200.0) and exec_us == approx(20.0)
    for k in range(11, 60):
        w.add(hb("n1", T0 + k * 0.05, i1=(10, 20.0, 0.5)))
    assert w.span() <= agg.RATE_WINDOW_S + 0.05 and len(w.items) <= 22  # the window slides


def test_a_node_is_stale_after_stale_after_ms_and_says_how_old_it_is():
    w = agg.NodeWindow()
    w.add(hb("n1", T0, watts=80.0, source="rapl", i1=(1, 5.0, 0.2)))
    meta = _meta().nodes["n1"]
    fresh = agg.node_view(meta, w, "up", None, T0 + 0.1)
    assert (fresh["age_ms"], fresh["stale"], fresh["power"]) == (100, False, {"watts": 80.0, "source": "rapl"})
    old = agg.node_view(meta, w, "suspect", "x", T0 + agg.STALE_AFTER_MS / 1000 + 0.01)
    assert old["stale"] and old["state"] == "suspect" and old["power"]["watts"] == 80.0  # shown, but marked
    never = agg.node_view(meta, None, "up", None, T0)
    assert never["stale"] and never["ts"] is None and never["power"] is None


def _windows(now: float, n2_source: str = "model", n2_last: float | None = None) -> dict:
    windows = {n: agg.NodeWindow() for n in ("n1", "n2")}
    for k in range(11):
        t = now - 0.5 + k * 0.05
        windows["n1"].add(hb("n1", t, watts=50.0, source="rapl", i1=(10, 100.0, 0.5)))
        if n2_last is None or t <= n2_last:
            windows["n2"].add(hb("n2", t, watts=90.0, source=n2_source, i2=(10, 300.0, 0.2), i3=(5, 50.0, 0.1)))
    return windows


def test_application_figures_from_its_instances():
    now = T0 + 1
    apps, totals = agg.aggregate(_meta(), _windows(now), now)
    a, b = apps
    assert (a["application"], b["application"]) == ("a", "b")
    assert a["throughput_rps"] == approx(200.0)  # its entry (api) only: 10 per 50 ms
    assert a["latency"] == {"avg_us": approx(400.0), "p99_us": None, "p99_is_upper_bound": False,
                            "basis": "exec_time_path", "exec_path_us": approx(400.0)}
    # attributed as the energy history is (e3.energy.attribution): n1 (idle 0 W) gives its 50 W to i1, whose
    # 0.5 CPU share is all the node's CPU (0.5); n2's 90 W are 30 W idle, shared 2:1 by i2's and i3's reserved
    # cores (20 + 10 W), and 60 W dynamic, of which i2 (0.2 CPU) and i3 (0.1) get their part of the node's
    # 0.5 CPU (24 + 12 W) and the node's own 0.2 keeps 24 W unattributed
    assert a["power"]["watts"] == approx(50.0 + 20.0 + 24.0) and a["power"]["source"] == "mixed"
    assert a["power"]["sources"] == ["model", "rapl"]
    assert a["joules_per_request"] == approx(94.0 / 200.0)
    assert b["power"]["watts"] == approx(22.0) and b["joules_per_request"] == approx(22.0 / 100.0)
    assert a["predicted"]["p99_latency_ms"] == 1.5 and a["predicted"]["source"] == "model"
    # n3 (a's backup) never reported: a misses it and says so
    assert (a["complete"], a["nodes_stale"], b["complete"]) == (False, 1, True)
    assert totals["power"]["watts"] == approx(140.0) and totals["nodes_reporting"] == 2
    assert totals["throughput_rps"] == approx(300.0)
    assert totals["requests_per_joule"] == approx(300.0 / 140.0) and not totals["complete"]
    # its graph: each DAG node's figures (the entry's throughput is the application's), each edge's rate
    api, db = a["dag_nodes"]
    assert (api["dag_node"], db["dag_node"]) == ("api", "db")
    assert api["throughput_rps"] == a["throughput_rps"] and api["instances"] == {"host": 1, "smartnic": 0}
    assert api["joules_per_request"] == approx(50.0 / 200.0) and api["queue_max"] == 3
    assert db["instances"] == {"host": 2, "smartnic": 0} and db["instances_stale"] == 1  # its backup, on n3
    assert a["edges"] == [{"from": "api", "to": "db", "rate_rps": db["throughput_rps"], "basis": "target_throughput",
                           "per_request": approx(db["throughput_rps"] / api["throughput_rps"])}]
    assert b["edges"] == [] and [d["dag_node"] for d in b["dag_nodes"]] == ["kv"]


def test_a_stale_node_counts_in_no_figure():
    now = T0 + 1
    apps, totals = agg.aggregate(_meta(), _windows(now, n2_last=now - 0.9), now)
    a, b = apps
    assert b["throughput_rps"] is None and b["power"]["watts"] is None and b["joules_per_request"] is None
    assert a["throughput_rps"] == approx(200.0) and a["power"]["watts"] == approx(50.0)
    assert a["latency"]["avg_us"] == approx(100.0) and a["nodes_stale"] == 2
    assert totals["power"] == {"watts": 50.0, "source": "rapl", "sources": ["rapl"]} and totals["nodes_stale"] == 2


def test_slowest_path_takes_the_longest_branch():
    app = agg.AppMeta("d", "x", 1, ("a", "b", "c", "d"), (("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")))
    assert app.entries == {"a"}
    assert agg.slowest_path_us(app, {"a": 1.0, "b": 10.0, "c": 2.0, "d": 3.0}) == 14.0
    assert agg.slowest_path_us(app, {}) is None


def test_latency_measured_at_the_entry_wins_over_the_execution_path():
    """i1 (a's entry) answers 10 per heartbeat: mean 2 ms, p99 5 ms, once 9 ms; i2 (not an entry) is not used."""
    now = T0 + 1
    windows = {"n1": agg.NodeWindow(), "n2": agg.NodeWindow()}
    for k in range(21):
        t = now - 1 + k * 0.05
        slow = k == 10
        windows["n1"].add(agg.parse_heartbeat(dict(
            node_id="n1", ts=_ts(t), power_watts=50.0, power_source="model",
            instances=[dict(id="i1", requests=10, exec_us=100.0, cpu_share=0.5, lat_n=10,
                            lat_avg_us=3000.0 if slow else 2000.0, lat_p99_us=9000.0 if slow else 5000.0)])))
        windows["n2"].add(hb("n2", t, i2=(10, 300.0, 0.2)))
    a = agg.aggregate(_meta(), windows, now)[0][0]
    assert a["latency"]["basis"] == "measured_at_entry"
    assert a["latency"]["avg_us"] == approx((19 * 2000.0 + 3000.0) / 20)  # the 20 heartbeats after the first
    assert a["latency"]["p99_us"] == approx(9000.0) and a["latency"]["p99_is_upper_bound"]
    assert a["latency"]["exec_path_us"] == approx(400.0)
