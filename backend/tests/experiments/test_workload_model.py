"""The workload model: clusters, placement rules where the paper's clusters need them, the fit on 4 x Beefy."""

import copy

import pytest

from e3 import catalog
from e3.experiments import table5, workload
from e3.experiments.base import RunContext
from e3.placement import hcm, problem_from_document
from e3.placement.model import PlacementError, copy_nodes


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: the model is pure and needs no database."""


def test_clusters_have_table4s_servers_idle_power_and_price():
    table4 = workload.paper_values()["clusters_table4"]
    for cluster in workload.TABLE5_CLUSTERS:
        nodes = workload.cluster_nodes(cluster)
        servers = {n.server: n.server_type for n in nodes}
        types = catalog.server_types()
        assert sum(types[t].idle_watts for t in servers.values()) == table4[cluster]["idle_watts"]
        # Table 4's 2xB.+2xW. row says $13,018, $400 below its own servers' prices (2 x 4,500 + 2 x 2,209).
        expected_cost = 13418 if cluster == "2xbeefy+2xwimpy" else table4[cluster]["cost_usd"]
        assert sum(types[t].cost_usd for t in servers.values()) == expected_cost


def test_krpj_divides_by_wall_power_idle_included():
    e = workload.evaluate("nfv-fin", "4xbeefy", 0.5)
    assert e.power_watts >= workload.paper_values()["clusters_table4"]["4xbeefy"]["idle_watts"]
    assert e.krpj == pytest.approx(e.throughput_rps / e.power_watts / 1000)


def test_one_server_cluster_drops_backups_only_there():
    superbeefy = workload.placed("nfv-fin", "1xsuperbeefy")
    assert superbeefy.problem.instances and all(i.replica == 0 for i in superbeefy.problem.instances)
    assert "one fault domain" in superbeefy.rules[0]
    beefy = workload.placed("nfv-fin", "4xbeefy")
    assert any(i.replica == 1 for i in beefy.problem.instances) and beefy.rules == ()
    # The fault-domain rule itself is untouched: the catalogue problem still cannot go on one server.
    problem = problem_from_document(catalog.template("nfv-fin"))
    with pytest.raises(PlacementError) as err:
        hcm.hcm(problem, copy_nodes(workload.cluster_nodes("1xsuperbeefy")))
    assert err.value.resource == "fault_domains"


def test_wimpy_memory_gets_scaled_reservations_and_only_when_they_do_not_fit():
    problem = problem_from_document(catalog.template("rta-shm"))
    with pytest.raises(PlacementError):
        hcm.hcm(problem, copy_nodes(workload.cluster_nodes("4xwimpy")))
    wimpy = workload.placed("rta-shm", "4xwimpy")
    assert any("reservations scaled" in r for r in wimpy.rules)
    per_server = {}
    by_id = {n.id: n for n in wimpy.nodes}
    for inst in wimpy.problem.instances:
        server = by_id[wimpy.placement.assignments[inst.key]].server
        per_server[server] = per_server.get(server, 0) + inst.memory_mb
    assert max(per_server.values()) <= 2 * 1024
    assert workload.placed("rta-shm", "4xbeefy").rules == ()


def test_edge_ratios_cover_every_edge_and_unfitted_apps_take_their_class():
    ratios = workload.edge_ratios("iot-ts", 0.25)
    assert set(ratios) == {("api", "sql"), ("sql", "ema"), ("sql", "spike"), ("sql", "recommend")}
    assert set(ratios.values()) == {0.25}
    fitted = {"nfv-fin": 0.5, "rta-shm": 0.2, "iot-ts": 0.05}
    assert workload.ratio_for("nfv-din", fitted) == 0.5
    assert workload.ratio_for("rta-ptc", fitted) == 0.2
    assert workload.ratio_for("iot-dh", fitted) == 0.05


def test_the_fit_reproduces_the_fitted_cluster_within_ten_percent():
    fitted = workload.fit(workload.table5_paper("4xbeefy"))
    assert fitted.cluster == "4xbeefy"
    assert fitted.max_abs_residual <= 0.10
    assert all(0 < r <= 1 for r in fitted.ratios.values())


def _table5_with(monkeypatch, change):
    values = copy.deepcopy(workload.paper_values())
    change(values["table5_krpj"])
    monkeypatch.setattr(workload, "paper_values", lambda: values)
    rows = table5.EXPERIMENT.run(RunContext(quick=True)).rows
    monkeypatch.undo()
    return {(r["cluster"], r["app"]): (r["edge_ratio"], r["ours_krpj"]) for r in rows}


def test_held_out_paper_values_never_enter_the_fit(monkeypatch):
    base = _table5_with(monkeypatch, lambda t: None)

    def move_held_out(t):
        for cluster in workload.TABLE5_CLUSTERS:
            if cluster != workload.FIT_CLUSTER:
                t[cluster] = {app: v * 3 for app, v in t[cluster].items()}

    assert _table5_with(monkeypatch, move_held_out) == base

    def move_fitted(t):
        t["4xbeefy"]["nfv-fin"] *= 1.5

    moved = _table5_with(monkeypatch, move_fitted)
    assert moved[("4xwimpy", "nfv-fin")] != base[("4xwimpy", "nfv-fin")]
    assert moved[("4xwimpy", "iot-ts")] == base[("4xwimpy", "iot-ts")]
