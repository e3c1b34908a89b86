"""Figure 10 in quick mode: cost efficiency by the energy package's formula, best cluster per application."""

import pytest

from e3.energy.cost import PAPER_USD_PER_KWH, CostInputs, cost_efficiency
from e3.experiments import fig10
from e3.experiments.base import RunContext


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: the model is pure and needs no database."""


@pytest.fixture(scope="module")
def result():
    return fig10.EXPERIMENT.run(RunContext(quick=True))


def test_rows_follow_the_energy_packages_formula(result):
    assert len(result.rows) == 5 * 3 * 5
    for row in result.rows:
        expected = cost_efficiency(CostInputs(row["ours_rps"], row["ours_wall_watts"], row["capex_usd"],
                                              PAPER_USD_PER_KWH), row["years"])
        assert row["ours_requests_per_usd"] == pytest.approx(expected.requests_per_usd)


def test_cost_efficiency_grows_with_time_of_ownership(result):
    series = [r["ours_requests_per_usd"] for r in result.rows if r["app"] == "iot-ts" and r["cluster"] == "4xbeefy"]
    assert series == sorted(series) and series[0] < series[-1]


def test_best_after_five_years(result):
    best = {q.labels["app"]: q for q in result.quantities if q.name == "best cluster after 5 years is the paper's"}
    assert best["nfv-fin"].labels["ours_best"] == "4xwimpy"  # as the paper
    assert best["iot-ts"].labels["ours_best"] == "2xtype2-smartnic"  # as the paper
    # Missed, stated in the notes: RTA-SHM's best is 4xWimpy in the model, not 2xType2.
    assert best["rta-shm"].verdict == "outside"
    assert "Misses:" in " ".join(result.notes)


def test_type2_lead_on_rta_shm_and_iot_ts_within_tolerance(result):
    lead = next(q for q in result.quantities if q.name.startswith("2xType2 over the next best"))
    assert lead.verdict == "within"


def test_plot_axes_have_units(result):
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure()
    result.plot(figure)
    assert "years" in figure.axes[0].get_xlabel() and "US dollar" in figure.axes[0].get_ylabel()
