"""Figure 5 in quick mode: what holds is asserted, every miss is named in the notes with its size."""

import pytest

from e3.experiments import fig5
from e3.experiments.base import RunContext


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: the model is pure and needs no database."""


@pytest.fixture(scope="module")
def result():
    return fig5.EXPERIMENT.run(RunContext(quick=True))


def _named(result, name):
    return [q for q in result.quantities if q.name == name]


def test_all_eight_applications_compared_held_out(result):
    assert len(result.rows) == 8
    assert all(q.role == "held-out" and q.source == "model" for q in result.quantities)
    assert all(r["efficiency_ratio"] > 0 for r in result.rows)


def test_every_quantity_names_the_clusters_it_compares(result):
    # `e3 experiment run table5 fig5 --json` gives each cell its cluster; here the pair of clusters.
    assert {q.labels["cluster"] for q in result.quantities} == {"3xtype1-smartnic vs 3xbeefy"}


def test_class_means_iot_within_and_the_misses_stated(result):
    classes = {q.labels["class"]: q for q in _named(result, "energy-efficiency ratio, class mean")}
    assert classes["iot"].verdict == "within"  # 1.3 ± 25%
    # Missed (stated in the notes): NFV below 2.5 by more than 25%, RTA above 1.3 by more than 25%.
    assert classes["nfv"].verdict == "outside" and classes["rta"].verdict == "outside"
    notes = " ".join(result.notes)
    for q in result.quantities:
        if q.verdict == "outside":
            assert f"{q.name} {q.labels}: ours {q.ours:.3g} vs paper {q.paper:g}" in notes


def test_smartnics_win_on_energy_for_the_nic_suited_chains(result):
    by_app = {r["app"]: r for r in result.rows}
    assert by_app["nfv-fin"]["efficiency_ratio"] > 1.3
    assert by_app["rta-shm"]["efficiency_ratio"] > 1.3
    assert by_app["nfv-fin"]["avg_latency_cost"] < 0  # a saving, as the paper's NFV class


def test_rta_ptc_ratio_within_but_no_latency_cost(result):
    ptc = next(q for q in _named(result, "energy-efficiency ratio") if q.labels["app"] == "rta-ptc")
    assert ptc.verdict == "within"  # 1.12 ± 25%
    cost = _named(result, "RTA-PTC average latency cost")[0]
    assert cost.verdict == "outside" and cost.ours < 0  # missed: a saving where the paper saw a 4% cost
    assert _named(result, "NFV-FIN the highest application")[0].verdict == "outside"
    assert _named(result, "RTA-PTC the lowest application")[0].verdict == "outside"


def test_plot_has_units_and_both_series(result):
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure()
    result.plot(figure)
    assert "energy efficiency" in figure.axes[0].get_ylabel() and "%" in figure.axes[1].get_ylabel()
    assert len(figure.axes[0].get_legend().get_texts()) == 2
