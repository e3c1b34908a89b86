"""Figure 6 in quick mode: HCM against annealing and ILP with the same pinning for all (issue 21's target)."""

import pytest

from e3 import catalog
from e3.experiments.base import RunContext
from e3.experiments.fig6 import EXPERIMENT, PINNED_TO_HOST, TARGET_APPS_AHEAD, pinned_problem


@pytest.fixture(scope="module")
def quick_result():
    return EXPERIMENT.run(RunContext(quick=True))


def _by_name(result, name):
    return {tuple(sorted(q.labels.items())): q for q in result.quantities if q.name == name}


def test_every_algorithm_gets_the_same_pinning():
    for app in catalog.template_names():
        for inst in pinned_problem(app).instances:
            if inst.service in PINNED_TO_HOST:
                assert inst.platform == "host", (app, inst)


def test_the_target_of_5_of_8_apps_is_met_and_the_notes_name_where_hcm_is_behind(quick_result):
    # Issue 21's target: HCM ahead of both baselines on >= 5 of 8 apps, the pinning applied to every algorithm.
    # Annealing places all 8 (its start is retried most constrained first), so no app is left out of the count.
    [ahead] = _by_name(quick_result, "apps with HCM ahead of both baselines").values()
    [lenient] = _by_name(quick_result, "apps with HCM ahead of both baselines, an unplaced baseline counted as "
                                       "behind").values()
    assert ahead.ours >= TARGET_APPS_AHEAD and lenient.ours == ahead.ours and ahead.source == "model"
    [claim] = _by_name(quick_result, "HCM ahead of both baselines on at least 5 of 8 apps").values()
    assert (claim.ours, claim.verdict, claim.labels["ours_ahead"]) == (1.0, "within", ahead.ours)  # in the summary
    target = quick_result.notes[0]
    assert target.startswith(f"Target (HCM ahead of annealing and ILP on at least 5 of 8 apps) met: "
                             f"ahead of both on {ahead.ours} ")
    gains = _by_name(quick_result, "energy-efficiency gain of HCM")
    assert all(q.ours is not None for q in gains.values()), "a baseline could not place an app"
    for key, q in gains.items():
        if q.ours <= 0:
            app, baseline = dict(key)["app"], dict(key)["baseline"]
            assert f"{app} (behind {baseline})" in target


def test_each_app_is_reported_against_each_baseline_beside_the_papers_maximum(quick_result):
    gains = _by_name(quick_result, "energy-efficiency gain of HCM")
    assert len(gains) == 16 and all(q.source == "model" and q.unit == "%" for q in gains.values())
    largest = _by_name(quick_result, "largest energy-efficiency gain of HCM")
    assert {dict(k)["baseline"]: q.paper for k, q in largest.items()} == {"annealing": 35.2, "ilp": 22.0}
    for key, q in largest.items():
        baseline = dict(key)["baseline"]
        measured = [g.ours for k, g in gains.items() if dict(k)["baseline"] == baseline and g.ours is not None]
        assert q.ours == max(measured)
    # The model's gains are far larger than the paper's: said as a miss, not hidden.
    assert all(q.verdict == "outside" for q in largest.values())
    assert any(note.startswith("Largest gain over annealing:") for note in quick_result.notes)


def test_the_run_is_deterministic(quick_result):
    again = EXPERIMENT.run(RunContext(quick=True))
    assert [q.ours for q in again.quantities] == [q.ours for q in quick_result.quantities]
    assert EXPERIMENT.deterministic
