"""`e3 experiment list | run | report` as a researcher types them.

Tiny experiments are real modules of the e3.experiments package (written to a temporary folder added to the
package's path), so the runner finds them as it finds fig6: by discovery, with no registration.
"""

import json
import sys

import pytest

import e3.experiments
from e3.cli.main import main

TINY = '''
from e3.experiments.base import ExperimentResult, Quantity


class Tiny:
    name, title, needs, deterministic = "{name}", "Tiny {name}", frozenset(), True

    def run(self, ctx):
        {body}
        return ExperimentResult(
            rows=[{{"cluster": "4xBeefy", "app": "nfv-fin", "krpj": 5.0}}],
            quantities=[Quantity("KRPJ", 5.1, 5.0, "KRPJ", "model", 0.35, "fitted",
                                 {{"cluster": "4xBeefy", "app": "nfv-fin"}})],
            plot=lambda figure: figure.subplots().bar(["ours", "paper"], [5.0, 5.1]),
            notes=["tiny note"])


EXPERIMENT = Tiny()
'''


@pytest.fixture
def tiny_experiments(tmp_path, monkeypatch):
    """Adds modules tinyok (works) and tinycrash (raises) to e3.experiments for this test."""
    package = tmp_path / "extra"
    package.mkdir()
    (package / "tinyok.py").write_text(TINY.format(name="tinyok", body="pass"))
    (package / "tinycrash.py").write_text(TINY.format(name="tinycrash", body="raise ValueError('out of cheese')"))
    monkeypatch.setattr(e3.experiments, "__path__", [*e3.experiments.__path__, str(package)])
    yield tmp_path
    for name in ("tinyok", "tinycrash"):
        sys.modules.pop(f"e3.experiments.{name}", None)


def e3_cli(monkeypatch, *args) -> int:
    """Run `e3 ARGS` in this process; its exit code."""
    monkeypatch.setattr(sys, "argv", ["e3", *args])
    try:
        main()
    except SystemExit as exc:
        return exc.code or 0
    return 0


def test_list_names_every_experiment(tiny_experiments, monkeypatch, capsys):
    assert e3_cli(monkeypatch, "experiment", "list", "--output", "json") == 0
    listed = {e["name"]: e for e in json.loads(capsys.readouterr().out)}
    assert listed["tinyok"] == {"name": "tinyok", "title": "Tiny tinyok", "needs": "-", "deterministic": True}
    assert {"fig6", "tinycrash"} <= set(listed)


def test_an_unknown_name_exits_2_listing_the_valid_ones(tiny_experiments, monkeypatch, capsys):
    assert e3_cli(monkeypatch, "experiment", "run", "tinyok", "fig99", "--out", str(tiny_experiments)) == 2
    err = capsys.readouterr().err
    assert "unknown experiment(s) fig99" in err and "fig6" in err and "tinyok" in err
    assert not (tiny_experiments / "tinyok").exists()  # nothing ran


def test_run_json_prints_each_cell_with_its_labels(tiny_experiments, monkeypatch, capsys):
    out = tiny_experiments / "results"
    assert e3_cli(monkeypatch, "experiment", "run", "tinyok", "--json", "--out", str(out)) == 0
    [summary] = json.loads(capsys.readouterr().out)
    assert (summary["experiment"], summary["status"], summary["runs"]) == ("tinyok", "ok", 1)
    [cell] = summary["quantities"]
    assert {k: cell[k] for k in ("cluster", "app", "paper", "ours", "source", "role")} == \
        {"cluster": "4xBeefy", "app": "nfv-fin", "paper": 5.1, "ours": 5.0, "source": "model", "role": "fitted"}
    assert sorted(p.name for p in (out / "tinyok").iterdir()) == ["data.csv", "plot.png", "summary.json"]


def test_a_crash_exits_1_and_the_others_still_run(tiny_experiments, monkeypatch, capsys):
    out = tiny_experiments / "results"
    assert e3_cli(monkeypatch, "experiment", "run", "tinycrash", "tinyok", "--out", str(out)) == 1
    captured = capsys.readouterr()
    assert "crashed: tinycrash" in captured.err and "tinyok: ok" in captured.out
    assert (out / "tinycrash" / "data.csv").read_text().startswith(
        "# INCOMPLETE: run 1 of 1 crashed: ValueError: out of cheese")


def test_report_writes_the_page_and_copies_the_plots(tiny_experiments, monkeypatch, capsys):
    out, docs = tiny_experiments / "results", tiny_experiments / "docs"
    e3_cli(monkeypatch, "experiment", "run", "tinyok", "tinycrash", "--quick", "--out", str(out))
    assert e3_cli(monkeypatch, "experiment", "report", "--results", str(out), "--docs", str(docs)) == 0
    page = (docs / "evaluation.md").read_text()
    assert "**tinyok** (Tiny tinyok): **reproduced**, 1 of 1 compared quantities within tolerance" in page
    assert "**tinycrash** (Tiny tinycrash): **crashed**, run 1 of 1 crashed: ValueError: out of cheese" in page
    assert "**Quick runs**" in page
    assert "| KRPJ | cluster=4xBeefy, app=nfv-fin | 5.1 | 5 KRPJ | 0.9804 | ±35% | within | model | fitted |" in page
    assert "![tinyok](img/evaluation/tinyok.png)" in page and (docs / "img/evaluation/tinyok.png").is_file()


def test_report_without_results_exits_1_saying_what_to_run(tmp_path, monkeypatch, capsys):
    assert e3_cli(monkeypatch, "experiment", "report", "--results", str(tmp_path), "--docs", str(tmp_path)) == 1
    assert "run `e3 experiment run all` first" in capsys.readouterr().err
