"""The application graph's live figures (e3.live.dag_figures): per DAG node, its instances by platform, its
primaries' throughput, latency, J/request, CPU and queue; per edge, a rate that adds up to what its target
completed, split among several callers by their throughputs."""

from types import SimpleNamespace as Inst

import pytest

from e3.live.dag_figures import dag_node_figures, edge_figures

KIND = {"h1": "host", "h2": "host", "n1": "smartnic", "n2": "smartnic"}
INSTANCES = [
    Inst(id="gw", node_id="h1", dag_node="gw", role="primary"),
    Inst(id="kv0", node_id="n1", dag_node="kv", role="primary"),
    Inst(id="kv1", node_id="n2", dag_node="kv", role="primary"),
    Inst(id="kv0b", node_id="h2", dag_node="kv", role="backup"),
    Inst(id="db", node_id="h2", dag_node="db", role="primary"),
]


def figures(reporting=("h1", "h2", "n1", "n2")):
    rates = {"gw": (100.0, 50.0), "kv0": (60.0, 20.0), "kv1": (140.0, 30.0), "kv0b": (0.0, None), "db": (40.0, 900.0)}
    latencies = {"gw": (100, 1000.0, 3000.0), "kv0": (60, 100.0, 400.0), "kv1": (140, 200.0, 900.0)}
    watts = {"gw": 30.0, "kv0": 10.0, "kv1": 10.0, "kv0b": 5.0, "db": 20.0}
    shares = {"gw": 0.5, "kv0": 0.2, "kv1": 0.4, "kv0b": 0.0, "db": 0.1}
    queues = {"h1": 3, "h2": 0, "n1": 40, "n2": 7}
    live = [i for i in INSTANCES if i.node_id in reporting]
    return {d["dag_node"]: d for d in dag_node_figures(
        ["gw", "kv", "db"], INSTANCES, lambda n: n in reporting, KIND.__getitem__,
        {i.id: rates[i.id] for i in live}, {i.id: latencies[i.id] for i in live if i.id in latencies},
        {i.id: watts[i.id] for i in live}, {i.id: shares[i.id] for i in live},
        lambda n: queues[n] if n in reporting else None)}


def test_each_dag_node_counts_its_instances_by_platform_and_measures_its_primaries():
    d = figures()
    assert d["kv"]["instances"] == {"host": 1, "smartnic": 2} and d["kv"]["primaries"] == 2
    assert d["kv"]["throughput_rps"] == 200.0  # both shards' primaries; the backup serves none
    assert d["kv"]["avg_latency_us"] == pytest.approx((60 * 100 + 140 * 200) / 200)
    assert d["kv"]["p99_latency_us"] == 900.0  # the highest: an upper bound
    assert d["kv"]["joules_per_request"] == pytest.approx(25.0 / 200)  # the backup's watts count too
    assert d["kv"]["cpu_share"] == pytest.approx(0.3) and d["kv"]["queue_max"] == 40
    assert d["db"]["avg_latency_us"] is None and d["db"]["throughput_rps"] == 40.0  # answered none OK: no latency
    assert list(d) == ["gw", "kv", "db"]


def test_a_node_not_reporting_leaves_its_instances_out_and_says_how_many():
    d = figures(reporting=("h1", "h2", "n2"))
    assert d["kv"]["instances_stale"] == 1 and d["kv"]["instances"] == {"host": 1, "smartnic": 2}
    assert d["kv"]["throughput_rps"] == 140.0 and d["kv"]["queue_max"] == 7
    nothing = figures(reporting=())["gw"]
    assert nothing["throughput_rps"] is None and nothing["joules_per_request"] is None and nothing["queue_max"] is None


def test_an_edge_carries_its_targets_throughput_split_by_its_callers_throughputs():
    edges = edge_figures([("gw", "kv"), ("gw", "db"), ("kv", "db")], {"gw": 100.0, "kv": 200.0, "db": 60.0})
    gw_kv, gw_db, kv_db = edges
    assert gw_kv == {"from": "gw", "to": "kv", "rate_rps": 200.0, "basis": "target_throughput", "per_request": 2.0}
    assert gw_db["basis"] == kv_db["basis"] == "split_by_caller_rate"
    assert gw_db["rate_rps"] == pytest.approx(20.0) and kv_db["rate_rps"] == pytest.approx(40.0)
    assert gw_db["rate_rps"] + kv_db["rate_rps"] == pytest.approx(60.0)  # what db completed, no more


def test_an_edge_whose_rates_are_not_measured_says_so():
    (edge,) = edge_figures([("gw", "kv")], {"gw": 100.0, "kv": None})
    assert edge["rate_rps"] is None and edge["basis"] == "not_measured" and edge["per_request"] is None
    a, b = edge_figures([("a", "c"), ("b", "c")], {"a": None, "b": 10.0, "c": 10.0})
    assert a["rate_rps"] is None and a["basis"] == "not_measured" and b["rate_rps"] == pytest.approx(10.0)
