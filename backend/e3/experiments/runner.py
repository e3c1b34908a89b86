"""Runs experiments and writes what they report: `results/NAME/` with data.csv, plot.png and summary.json.

An experiment is any module of the `e3.experiments` package that defines `EXPERIMENT` (see base.py):
a new module is found without registering it. Each runs `runs` times (once when it is deterministic:
a model gives the same figures every time); each quantity's `ours` is reported as the median over runs,
with the min and max beside it, and its verdict is the median's.

A run that raises, or returns `incomplete`, stops the experiment: the rows gathered so far stay in
data.csv under a first line saying it is incomplete and why, and the summary says so too. An
experiment whose needs are not met here (root, the emulated rack) is skipped, its reason in the summary.
"""

import csv
import datetime
import importlib
import json
import pkgutil
import statistics
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from e3.experiments.base import Experiment, ExperimentResult, Quantity, RunContext
from e3.experiments.environment import REPO_ROOT, git_commit, machine, unmet_need

DEFAULT_RESULTS = REPO_ROOT / "results"
DEFAULT_RUNS = 3
INCOMPLETE_MARK = "# INCOMPLETE"

# (experiment, runs) -> a progress callback (fraction of the whole experiment 0..1, text), and a closer
ProgressFactory = Callable[[Experiment, int], tuple[Callable[[float, str], None], Callable[[], None]]]


def discover(package: str = "e3.experiments") -> dict[str, Experiment]:
    """Every experiment of `package` by name, in name order: the modules defining EXPERIMENT."""
    pkg = importlib.import_module(package)
    found = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{package}.{info.name}")
        experiment = getattr(module, "EXPERIMENT", None)
        if experiment is not None:
            found[experiment.name] = experiment
    return dict(sorted(found.items()))


@dataclass
class Outcome:
    """What the runner reports of one experiment: its summary (as written) and whether it crashed."""

    summary: dict
    crashed: bool


def _quantity_key(q: Quantity) -> tuple:
    return q.name, tuple(sorted((k, str(v)) for k, v in q.labels.items()))


def aggregate(results: list[ExperimentResult]) -> list[dict]:
    """Each quantity across runs: ours as the median, min and max beside it, the verdict on the median."""
    by_key: dict[tuple, list[Quantity]] = {}
    for result in results:
        for q in result.quantities:
            by_key.setdefault(_quantity_key(q), []).append(q)
    out = []
    for runs in by_key.values():
        values = [q.ours for q in runs if q.ours is not None]
        median = statistics.median(values) if values else None
        q = replace(runs[-1], ours=median)
        out.append(dict(q.as_dict(), labels=dict(q.labels), min=min(values, default=None),
                        max=max(values, default=None), runs=len(values)))
    return out


def _write_csv(path: Path, rows: list[dict], incomplete: str | None) -> None:
    columns = list(dict.fromkeys(key for row in rows for key in row))
    with path.open("w", newline="") as f:
        if incomplete:
            f.write(f"{INCOMPLETE_MARK}: {incomplete}\n")
        writer = csv.DictWriter(f, fieldnames=columns or ["run"])
        writer.writeheader()
        for row in rows:
            writer.writerow({k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in row.items()})


def _write_plot(path: Path, result: ExperimentResult) -> str | None:
    """Draw the last run's figure; the reason when it could not be drawn (a broken plot must not lose the data)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 5), layout="constrained")
    try:
        result.plot(figure)
        figure.savefig(path, dpi=110)
    except Exception as exc:
        return f"the plot failed: {type(exc).__name__}: {exc}"
    return None


def _base_summary(experiment: Experiment, runs: int, quick: bool) -> dict:
    return {"experiment": experiment.name, "title": experiment.title, "needs": sorted(experiment.needs),
            "deterministic": experiment.deterministic, "machine": machine(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "commit": git_commit(), "runs": runs, "quick": quick, "status": "ok", "quantities": [],
            "notes": [], "skipped": None, "incomplete": None}


def run_experiment(experiment: Experiment, out_dir: Path, *, runs: int = DEFAULT_RUNS, quick: bool = False,
                   progress: Callable[[float, str], None] = lambda fraction, text: None) -> Outcome:
    """Run one experiment `runs` times (once if deterministic) and write `out_dir/NAME/`."""
    runs = 1 if experiment.deterministic else runs
    target = out_dir / experiment.name
    target.mkdir(parents=True, exist_ok=True)
    for stale in ("data.csv", "plot.png", "summary.json"):  # a previous run's files must not pass for this one's
        (target / stale).unlink(missing_ok=True)
    summary = _base_summary(experiment, runs, quick)
    reason = unmet_need(experiment.needs)
    if reason:
        summary.update(status="skipped", skipped=reason, runs=0)
        progress(1.0, f"skipped: {reason}")
        _write_json(target / "summary.json", summary)
        return Outcome(summary, crashed=False)

    results, rows, crashed, incomplete = [], [], False, None
    for index in range(runs):
        ctx = RunContext(quick=quick, run_index=index,
                         progress=lambda fraction, text, i=index: progress((i + min(max(fraction, 0.0), 1.0)) / runs,
                                                                            f"run {i + 1}/{runs}: {text}"))
        try:
            result = experiment.run(ctx)
        except Exception as exc:
            crashed = True
            incomplete = f"run {index + 1} of {runs} crashed: {type(exc).__name__}: {exc}"
            summary["traceback"] = traceback.format_exc()
            progress(index / runs, incomplete)
            break
        results.append(result)
        rows.extend({"run": index + 1, **row} for row in result.rows)
        if result.incomplete:
            incomplete = f"run {index + 1} of {runs} stopped early: {result.incomplete}"
            break
        progress((index + 1) / runs, f"run {index + 1}/{runs} done")

    _write_csv(target / "data.csv", rows, incomplete)
    summary["quantities"] = aggregate(results)
    summary["notes"] = list(dict.fromkeys(note for result in results for note in result.notes))
    summary["runs"] = len(results)
    if incomplete:
        summary.update(status="crashed" if crashed else "incomplete", incomplete=incomplete)
    last = results[-1] if results else None
    if last is not None and last.plot is not None:
        plot_error = _write_plot(target / "plot.png", last)
        if plot_error:
            summary["notes"].append(plot_error)
    _write_json(target / "summary.json", summary)
    return Outcome(summary, crashed=crashed)


def _write_json(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=1, default=str) + "\n")


def run_all(experiments: Iterable[Experiment], out_dir: Path, *, runs: int = DEFAULT_RUNS, quick: bool = False,
            progress_factory: ProgressFactory | None = None) -> list[Outcome]:
    """Each experiment in turn, with a progress callback from `progress_factory` (one bar per experiment)."""
    outcomes = []
    for experiment in experiments:
        if progress_factory is None:
            outcomes.append(run_experiment(experiment, out_dir, runs=runs, quick=quick))
            continue
        progress, close = progress_factory(experiment, 1 if experiment.deterministic else runs)
        try:
            outcomes.append(run_experiment(experiment, out_dir, runs=runs, quick=quick, progress=progress))
        finally:
            close()
    return outcomes
