"""`e3 experiment ...`: the paper's tables and figures, each an experiment (list, run, report)."""

import json
from pathlib import Path

import typer

from e3.cli.output import Output, console, emit, errors
from e3.client.api import ClientError

def _select(names: list[str], experiments: dict) -> list:
    if not names:
        raise ClientError(f"name the experiments to run, or `all`; valid: {', '.join(experiments)}", exit_code=2)
    if "all" in names:
        return list(experiments.values())
    unknown = [n for n in names if n not in experiments]
    if unknown:
        raise ClientError(f"unknown experiment(s) {', '.join(unknown)}; valid: {', '.join(experiments)}, all",
                          exit_code=2)
    return [experiments[n] for n in dict.fromkeys(names)]


def _progress_bars():
    """A rich Progress on stderr (stdout stays clean for --json), and a factory adding one bar per experiment."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    bars = Progress(TextColumn("{task.fields[name]:<12}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                    TimeElapsedColumn(), TextColumn("{task.description}"), console=errors)

    def factory(experiment, runs):
        task = bars.add_task("", total=1.0, name=experiment.name)
        return (lambda fraction, text: bars.update(task, completed=fraction, description=text),
                lambda: bars.update(task, completed=1.0))

    return bars, factory


def _one_line(summary: dict) -> str:
    if summary["status"] == "skipped":
        return f"{summary['experiment']}: skipped: {summary['skipped']}"
    verdicts = [q["verdict"] for q in summary["quantities"]]
    text = (f"{summary['experiment']}: {summary['status']}, {verdicts.count('within')} within, "
            f"{verdicts.count('outside')} outside tolerance, {len(verdicts)} quantities")
    return text + (f"; {summary['incomplete']}" if summary.get("incomplete") else "")


def register(app: typer.Typer) -> None:
    experiment_app = typer.Typer(help="The paper's evaluation: one experiment per table or figure "
                                      "(results/NAME/: data.csv, plot.png, summary.json).", no_args_is_help=True)
    app.add_typer(experiment_app, name="experiment")

    @experiment_app.command("list")
    def list_experiments(output: Output = typer.Option(Output.table, "--output", "-o")) -> None:
        """The experiments: name, title, what they need, whether one run suffices."""
        from e3.experiments.runner import discover

        rows = [dict(name=e.name, title=e.title, needs=", ".join(sorted(e.needs)) or "-",
                     deterministic=e.deterministic) for e in discover().values()]
        emit(rows, output, columns=["name", "title", "needs", "deterministic"])

    @experiment_app.command("run")
    def run(
        names: list[str] = typer.Argument(None, help="Experiments to run (see `e3 experiment list`), or `all`"),
        quick: bool = typer.Option(False, "--quick", help="The fast variant: smaller inputs, shorter limits"),
        runs: int = typer.Option(3, "--runs", min=1, help="Runs per experiment (a deterministic one runs once)"),
        as_json: bool = typer.Option(False, "--json", help="Print each experiment's summary as JSON"),
        out: Path = typer.Option(None, "--out", help="Results folder (default: results/ at the repository root)"),
    ) -> None:
        """Run experiments; write results/NAME/ (data.csv, plot.png, summary.json); exit 1 if one crashed."""
        from e3.experiments.runner import DEFAULT_RESULTS, discover, run_all

        selected = _select(names or [], discover())
        out_dir = out or DEFAULT_RESULTS
        bars, factory = _progress_bars()
        with bars:
            outcomes = run_all(selected, out_dir, runs=runs, quick=quick, progress_factory=factory)
        if as_json:
            print(json.dumps([o.summary for o in outcomes], indent=1, default=str))
        else:
            for outcome in outcomes:
                console.print(_one_line(outcome.summary), markup=False, highlight=False)
            console.print(f"results in {out_dir}", markup=False, highlight=False)
        crashed = [o.summary["experiment"] for o in outcomes if o.crashed]
        if crashed:
            raise ClientError(f"crashed: {', '.join(crashed)} (see results/NAME/summary.json and data.csv)")

    @experiment_app.command("report")
    def report(
        results: Path = typer.Option(None, "--results",
                                     help="Results folder (default: results/ at the repository root)"),
        docs: Path = typer.Option(None, "--docs", help="Docs folder to write evaluation.md into (default: docs/)"),
    ) -> None:
        """Write docs/evaluation.md (and docs/img/evaluation/*.png) from results/*/summary.json."""
        from e3.experiments.environment import REPO_ROOT
        from e3.experiments.report import write_report
        from e3.experiments.runner import DEFAULT_RESULTS

        try:
            page = write_report(results or DEFAULT_RESULTS, docs or REPO_ROOT / "docs")
        except ValueError as exc:
            raise ClientError(str(exc)) from exc
        console.print(f"wrote {page}", markup=False, highlight=False)
