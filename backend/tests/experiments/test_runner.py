"""The experiment runner: what it writes under results/NAME/ for an experiment that works, crashes, or cannot run."""

import csv
import json

from e3.experiments.base import ExperimentResult, Quantity, RunContext
from e3.experiments.runner import INCOMPLETE_MARK, discover, run_experiment


class Noisy:
    """Three runs give 9, 10 and 13 for the same cell: the median 10 is within 5% of the paper's 10.2."""

    name, title, needs, deterministic = "noisy", "A noisy figure", frozenset(), False

    def __init__(self):
        self.seen = []

    def run(self, ctx: RunContext) -> ExperimentResult:
        self.seen.append((ctx.run_index, ctx.quick))
        ctx.progress(0.5, "half way")
        ours = (9.0, 10.0, 13.0)[ctx.run_index]
        return ExperimentResult(
            rows=[{"cluster": "4xBeefy", "krpj": ours}, {"cluster": "2xType2", "krpj": ours * 2}],
            quantities=[Quantity("KRPJ", 10.2, ours, "KRPJ", "model", 0.05, "held-out",
                                 {"cluster": "4xBeefy", "app": "nfv-fin"})],
            plot=lambda figure: figure.subplots().plot([1, 2, 3], [ours, ours, ours]),
            notes=["a note"])


class Deterministic(Noisy):
    name, deterministic = "model-only", True


class CrashesOnSecondRun(Noisy):
    name = "crashy"

    def run(self, ctx):
        if ctx.run_index == 1:
            raise RuntimeError("the rack fell over")
        return super().run(ctx)


class NeedsRack(Noisy):
    name, needs = "rack-bound", frozenset({"rack"})


def test_three_runs_aggregate_to_the_median_with_min_and_max(tmp_path):
    experiment, progress = Noisy(), []
    outcome = run_experiment(experiment, tmp_path, runs=3, progress=lambda f, text: progress.append((f, text)))
    assert not outcome.crashed and experiment.seen == [(0, False), (1, False), (2, False)]
    summary = json.loads((tmp_path / "noisy" / "summary.json").read_text())
    assert summary == outcome.summary
    assert (summary["experiment"], summary["title"], summary["runs"], summary["quick"], summary["status"]) == \
        ("noisy", "A noisy figure", 3, False, "ok")
    assert set(summary["machine"]) == {"cores", "memory_gb", "cpu_model", "os", "python"}
    assert summary["machine"]["cores"] >= 1 and summary["date"] and summary["notes"] == ["a note"]
    [q] = summary["quantities"]
    assert (q["ours"], q["min"], q["max"], q["paper"], q["verdict"]) == (10.0, 9.0, 13.0, 10.2, "within")
    assert (q["cluster"], q["app"], q["labels"], q["source"], q["role"], q["tolerance"]) == \
        ("4xBeefy", "nfv-fin", {"cluster": "4xBeefy", "app": "nfv-fin"}, "model", "held-out", 0.05)
    assert abs(q["ratio"] - 10.0 / 10.2) < 1e-9
    with (tmp_path / "noisy" / "data.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["run"], r["cluster"], r["krpj"]) for r in rows] == [
        ("1", "4xBeefy", "9.0"), ("1", "2xType2", "18.0"), ("2", "4xBeefy", "10.0"), ("2", "2xType2", "20.0"),
        ("3", "4xBeefy", "13.0"), ("3", "2xType2", "26.0")]
    assert (tmp_path / "noisy" / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert progress[0] == (0.5 / 3, "run 1/3: half way") and progress[-1][0] == 1.0


def test_the_verdict_is_the_medians_not_the_last_runs(tmp_path):
    # the last run (13) alone would be outside 5%; the median (10) is within
    summary = run_experiment(Noisy(), tmp_path, runs=3).summary
    assert summary["quantities"][0]["verdict"] == "within"


def test_a_deterministic_experiment_runs_once(tmp_path):
    experiment = Deterministic()
    summary = run_experiment(experiment, tmp_path, runs=3, quick=True).summary
    assert experiment.seen == [(0, True)] and summary["runs"] == 1 and summary["quick"] is True
    assert summary["quantities"][0]["min"] == summary["quantities"][0]["max"] == 9.0


def test_a_crashed_run_leaves_its_partial_csv_marked_incomplete(tmp_path):
    outcome = run_experiment(CrashesOnSecondRun(), tmp_path, runs=3)
    assert outcome.crashed
    lines = (tmp_path / "crashy" / "data.csv").read_text().splitlines()
    assert lines[0] == f"{INCOMPLETE_MARK}: run 2 of 3 crashed: RuntimeError: the rack fell over"
    assert lines[1] == "run,cluster,krpj" and len(lines) == 4  # run 1's two rows are kept
    summary = json.loads((tmp_path / "crashy" / "summary.json").read_text())
    assert summary["status"] == "crashed" and "the rack fell over" in summary["incomplete"]
    assert summary["runs"] == 1 and "RuntimeError" in summary["traceback"]


def test_an_experiment_stopping_early_is_incomplete_not_crashed(tmp_path):
    class StopsEarly(Noisy):
        name = "stops"

        def run(self, ctx):
            return ExperimentResult(rows=[{"step": 1}], quantities=[], incomplete="the load generator timed out")

    outcome = run_experiment(StopsEarly(), tmp_path, runs=3)
    assert not outcome.crashed and outcome.summary["status"] == "incomplete" and outcome.summary["runs"] == 1
    first = (tmp_path / "stops" / "data.csv").read_text().splitlines()[0]
    assert first == f"{INCOMPLETE_MARK}: run 1 of 3 stopped early: the load generator timed out"


def test_unmet_needs_skip_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("E3_AGENT_BIN", str(tmp_path / "no-such-agent"))
    experiment = NeedsRack()
    outcome = run_experiment(experiment, tmp_path, runs=3)
    assert experiment.seen == [] and not outcome.crashed
    summary = json.loads((tmp_path / "rack-bound" / "summary.json").read_text())
    assert summary["status"] == "skipped" and summary["skipped"].startswith("the emulated rack is unavailable")
    assert not (tmp_path / "rack-bound" / "data.csv").exists()


def test_root_is_a_need_too(tmp_path, monkeypatch):
    class NeedsRoot(Noisy):
        name, needs = "root-bound", frozenset({"root"})

    monkeypatch.setattr("os.geteuid", lambda: 1000)
    summary = run_experiment(NeedsRoot(), tmp_path).summary
    assert summary["status"] == "skipped" and "needs root" in summary["skipped"]


def test_a_rerun_replaces_the_previous_files(tmp_path):
    run_experiment(Noisy(), tmp_path, runs=1)
    assert (tmp_path / "noisy" / "plot.png").exists()

    class NoPlot(Noisy):
        def run(self, ctx):
            return ExperimentResult(rows=[], quantities=[])

    run_experiment(NoPlot(), tmp_path, runs=1)
    assert not (tmp_path / "noisy" / "plot.png").exists()  # the old plot must not pass for this run's


def test_discovery_finds_the_package_modules_that_define_an_experiment():
    found = discover()
    assert found["fig6"].name == "fig6" and list(found) == sorted(found)
    assert "runner" not in found and "base" not in found
