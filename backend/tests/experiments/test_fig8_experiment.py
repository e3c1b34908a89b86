"""Figure 8 in quick mode: power vs load on 3 x Type1-SmartNIC; what holds is asserted, the miss is named."""

import pytest

from e3.experiments import fig8
from e3.experiments.base import RunContext
from e3.experiments.runner import discover


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: the model is pure and needs no database."""


@pytest.fixture(scope="module")
def result():
    return fig8.EXPERIMENT.run(RunContext(quick=True))


def _by(result, name):
    return {q.labels.get("app"): q for q in result.quantities if q.name == name}


def test_found_by_the_runner_deterministic_and_model_only():
    assert discover()["fig8"] is fig8.EXPERIMENT
    assert fig8.EXPERIMENT.deterministic and not fig8.EXPERIMENT.needs


def test_rows_per_app_and_load_with_units(result):
    apps = ("nfv-fin", "rta-shm", "iot-ts")
    assert [(r["app"], r["load_fraction"]) for r in result.rows] == [
        (a, f) for a in apps for f in fig8.QUICK_LOAD_FRACTIONS]
    for r in result.rows:
        assert set(r) >= {"app", "load_fraction", "offered_rps", "watts", "normalised"}
        assert r["normalised"] == pytest.approx(r["watts"] / r["idle_watts"])
    assert all(q.source == "model" and q.role == "held-out" for q in result.quantities)


def test_power_rises_with_load_from_above_idle(result):
    for app in ("nfv-fin", "rta-shm", "iot-ts"):
        curve = [r["normalised"] for r in result.rows if r["app"] == app]
        assert curve[0] > 1.0  # deployed, no requests: the SmartNICs poll at full active power
        assert curve == sorted(curve) and curve[-1] > curve[0]
        peak = next(r for r in result.rows if r["app"] == app and r["load_fraction"] == 1.0)
        assert peak["offered_rps"] > 0


def test_curves_have_no_paper_value(result):
    for name in ("normalised power at peak", "normalised power at zero load", "load-following share of active power"):
        assert all(q.paper is None and q.verdict == "no paper value" for q in _by(result, name).values())


def test_iot_ts_proportional_nfv_fin_not_and_lowest(result):
    claims = _by(result, "power-proportional or not, as the paper states")
    assert claims["iot-ts"].verdict == "within" and claims["iot-ts"].labels["ours_proportional"]
    assert claims["nfv-fin"].verdict == "within" and not claims["nfv-fin"].labels["ours_proportional"]
    lowest = next(q for q in result.quantities if q.name == "NFV-FIN draws the least power at peak")
    assert lowest.verdict == "within" and lowest.labels["ours_lowest"] == "nfv-fin"


def test_rta_shm_miss_is_stated_with_its_size(result):
    """The paper: RTA-SHM is power-proportional. The model puts it on always-on SmartNICs: not, and said so."""
    claim = _by(result, "power-proportional or not, as the paper states")["rta-shm"]
    assert claim.verdict == "outside"
    share = _by(result, "load-following share of active power")["rta-shm"].ours
    assert share < fig8.PROPORTIONAL_SHARE
    assert f"rta-shm (load-following share {share:.2f}, paper: proportional)" in " ".join(result.notes)


def test_share_definition():
    assert fig8.load_following_share(100.0, 100.0, 200.0) == 1.0  # all of the active power follows the load
    assert fig8.load_following_share(100.0, 200.0, 200.0) == 0.0  # flat
    assert fig8.load_following_share(100.0, 100.0, 100.0) is None


def test_full_run_has_eleven_loads():
    full = fig8.EXPERIMENT.run(RunContext(quick=False))
    assert sorted({r["load_fraction"] for r in full.rows}) == list(fig8.LOAD_FRACTIONS)


def test_plot_has_units_and_one_line_per_app(result):
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure()
    result.plot(figure)
    ax = figure.axes[0]
    assert "%" in ax.get_xlabel() and "idle" in ax.get_ylabel()
    assert sum("(ours, model)" in t.get_text() for t in ax.get_legend().get_texts()) == 3
