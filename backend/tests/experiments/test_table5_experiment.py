"""Table 5 in quick mode: the issue's targets as assertions where they hold, every miss named in the notes."""

import pytest

from e3.experiments import table5, workload
from e3.experiments.base import RunContext


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: the model is pure and needs no database."""


@pytest.fixture(scope="module")
def result():
    return table5.EXPERIMENT.run(RunContext(quick=True))


def _cells(result):
    return {(q.labels["cluster"], q.labels["app"]): q for q in result.quantities if q.name == "KRPJ"}


def test_every_cell_is_placed_and_labelled_with_its_role_and_source(result):
    cells = _cells(result)
    assert set(cells) == {(c, a) for c in workload.TABLE5_CLUSTERS for a in workload.TABLE5_APPS}
    for (cluster, _app), q in cells.items():
        assert q.ours is not None and q.ours > 0  # 1xSuperBeefy and 4xWimpy too
        assert q.source == "model" and q.unit == "KRPJ"
        assert q.role == ("fitted" if cluster == "4xbeefy" else "held-out")
        assert q.tolerance == (0.10 if q.role == "fitted" else 0.35)
    assert table5.EXPERIMENT.deterministic and not table5.EXPERIMENT.needs


def test_fitted_cells_within_ten_percent(result):
    assert all(q.verdict == "within" for q in _cells(result).values() if q.role == "fitted")


def test_held_out_cells_that_hold_and_every_miss_stated(result):
    cells = _cells(result)
    within = {k for k, q in cells.items() if q.role == "held-out" and q.verdict == "within"}
    # Target: all 12 held-out cells within ±35%. Met by these six (the others are misses, below).
    assert {("4xwimpy", "nfv-fin"), ("2xbeefy+2xwimpy", "nfv-fin"), ("2xtype2-smartnic", "iot-ts"),
            ("1xsuperbeefy", "nfv-fin"), ("1xsuperbeefy", "rta-shm"), ("1xsuperbeefy", "iot-ts")} <= within
    notes = " ".join(result.notes)
    for (cluster, app), q in cells.items():
        if q.verdict == "outside":
            assert f"{cluster} {app} {q.ours:.2f} vs {q.paper}" in notes


def test_best_cluster_per_app(result):
    best = {q.labels["app"]: q for q in result.quantities if q.name == "best cluster is the paper's"}
    assert best["nfv-fin"].labels["ours_best"] == "4xwimpy" and best["nfv-fin"].verdict == "within"
    assert best["iot-ts"].labels["ours_best"] == "2xtype2-smartnic" and best["iot-ts"].verdict == "within"
    # Missed: RTA-SHM's best is 4xWimpy in the model (the paper's 2xType2), from the Wimpy miss.
    assert best["rta-shm"].verdict == "outside" and best["rta-shm"].labels["paper_best"] == "2xtype2-smartnic"


def test_notes_state_the_power_choice_and_the_fitted_values(result):
    notes = " ".join(result.notes)
    assert "wall power (not just active power)" in notes
    assert "Fitted on 4xbeefy only" in notes


def test_plot_draws_ours_beside_the_paper_with_units(result):
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure()
    result.plot(figure)
    labels = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert labels == ["paper", "ours (model)"]
    assert "KRPJ" in figure.axes[0].get_ylabel()
