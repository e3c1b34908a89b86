"""§5.6 power budgets in quick mode: what holds is asserted, every miss is named in the notes with its size."""

import pytest

from e3.experiments import power_budget
from e3.experiments.base import RunContext
from e3.experiments.runner import discover


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: the model is pure and needs no database."""


@pytest.fixture(scope="module")
def result():
    return power_budget.EXPERIMENT.run(RunContext(quick=True))


def _cell(result, name, pair, app):
    return next(q for q in result.quantities if q.name == name and q.labels.get("app") == app
                and (q.labels["smartnic_cluster"], q.labels["baseline_cluster"]) == pair)


THROUGHPUT = "throughput at equal power, SmartNIC / baseline (paper: its efficiency ratio)"
SAVING = "power saving at equal throughput (paper: from its efficiency ratio)"


def test_found_by_the_issue_name():
    assert discover()["power-budget"] is power_budget.EXPERIMENT
    assert power_budget.EXPERIMENT.deterministic and not power_budget.EXPERIMENT.needs


def test_rows_and_labels(result):
    assert len(result.rows) == 6
    assert all(q.source == "model" for q in result.quantities)
    for r in result.rows:
        assert r["smartnic_watts_at_target"] < r["baseline_watts"]  # the SmartNIC design wins on every cell
        assert r["smartnic_rps_at_budget"] > r["baseline_rps"]


def test_equal_power_and_equal_throughput_are_one_figure(result):
    """Deployments sized to the budget: saving = 1 - 1 / throughput ratio (as 48% and 1.9x in the paper)."""
    for r in result.rows:
        assert r["power_saving_pct"] == pytest.approx((1 - 1 / r["throughput_ratio"]) * 100)


def test_iot_ts_within_table5s_ratio(result):
    pair = power_budget.TABLE4_PAIR
    assert _cell(result, THROUGHPUT, pair, "iot-ts").verdict == "within"
    assert _cell(result, SAVING, pair, "iot-ts").verdict == "within"
    assert _cell(result, THROUGHPUT, pair, "iot-ts").paper == pytest.approx(6.1 / 2.7)


def test_headline_misses_are_stated_with_their_size(result):
    notes = " ".join(result.notes)
    up_to = next(q for q in result.quantities if q.name == "throughput at equal power, up to")
    assert up_to.paper == 1.9 and up_to.verdict == "outside" and up_to.ours > up_to.paper
    saving = next(q for q in result.quantities if q.name == "power saving at equal throughput, up to")
    assert saving.paper == 48.0 and saving.verdict == "outside"
    for q in result.quantities:
        if q.verdict == "outside":
            assert f"{q.name} {q.labels}: ours {q.ours:.3g} vs paper {q.paper:.3g} ({q.ratio:.2f}x)" in notes
    assert "1 - 1/1.9 = 47.4% saving" in notes


def test_fig5_pair_has_a_paper_value_for_nfv_fin_only(result):
    pair = power_budget.FIG5_PAIR
    assert _cell(result, THROUGHPUT, pair, "nfv-fin").paper == 3.0
    assert _cell(result, THROUGHPUT, pair, "rta-shm").verdict == "no paper value"


def test_plot_has_units(result):
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure()
    result.plot(figure)
    assert "(x)" in figure.axes[0].get_ylabel() and "(%)" in figure.axes[1].get_ylabel()
