"""docs/evaluation.md from the runner's summaries: the plain account at the top, a table per experiment."""

from e3.experiments.base import ExperimentResult, Quantity
from e3.experiments.report import write_report
from e3.experiments.runner import run_experiment


class TwoCells:
    name, title, needs, deterministic = "cells", "Two cells", frozenset(), True

    def __init__(self, second_ours):
        self.second_ours = second_ours

    def run(self, ctx):
        return ExperimentResult(
            rows=[{"x": 1}],
            quantities=[Quantity("KRPJ", 5.1, 5.0, "KRPJ", "model", 0.35, "fitted", {"cluster": "4xBeefy"}),
                        Quantity("KRPJ", 2.7, self.second_ours, "KRPJ", "model", 0.35, "held-out",
                                 {"cluster": "2xType2"}),
                        Quantity("watts", None, 804.0, "W", "model")],
            notes=["2xType2 is off because the per-edge ratios were fitted on 4xBeefy only"])


class RackOnly(TwoCells):
    name, needs = "rack-only", frozenset({"rack"})


def test_a_miss_is_said_with_its_reason_at_the_top(tmp_path, monkeypatch):
    results, docs = tmp_path / "results", tmp_path / "docs"
    run_experiment(TwoCells(second_ours=0.02), results)
    monkeypatch.setenv("E3_AGENT_BIN", str(tmp_path / "missing"))
    run_experiment(RackOnly(second_ours=2.7), results)
    page = write_report(results, docs).read_text()
    assert "- **cells** (Two cells): **partly reproduced**, 1 of 2 compared quantities within tolerance." in page
    assert "  Why: 2xType2 is off because the per-edge ratios were fitted on 4xBeefy only" in page
    assert "- **rack-only** (Two cells): **skipped**, the emulated rack is unavailable" in page
    assert "| KRPJ | cluster=2xType2 | 2.7 | 0.02 KRPJ | 0.007407 | ±35% | outside | model | held-out |" in page
    assert "| watts | – | – | 804 W | – | – | no paper value | model | – |" in page
    assert "Quick runs" not in page and "![cells]" not in page  # no plot drawn, none shown


def test_all_within_is_reproduced(tmp_path):
    results = tmp_path / "results"
    run_experiment(TwoCells(second_ours=2.8), results)
    page = write_report(results, tmp_path / "docs").read_text()
    assert "**cells** (Two cells): **reproduced**, 2 of 2 compared quantities within tolerance." in page
