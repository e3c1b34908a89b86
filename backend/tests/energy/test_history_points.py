"""A history step's point from its sums: gaps stay gaps, sources combine, watts_max per scope, J/request."""

from datetime import datetime, timezone

from e3.energy.history_points import SourceSums, StepWatts, combined_source, history_point, history_totals

TS = datetime(2026, 11, 26, 12, tzinfo=timezone.utc)


def test_a_step_without_rows_has_no_figures_not_zeros():
    point = history_point(TS, {}, None, group=True)
    assert point["joules"] is None and point["requests"] is None and point["watts_mean"] is None
    assert point["source"] is None and point["sources"] == [] and point["joules_by_source"] == {}
    assert history_totals([point]) == dict(joules=None, requests=None, joules_per_request=None, sources=[])


def test_sources_combine_and_the_figures_add_up():
    sums = {"rapl": SourceSums(30.0, 10, 20.0), "model": SourceSums(12.0, 2, 10.0)}
    point = history_point(TS, sums, StepWatts(2.5, 3.0, 7.0), group=True)
    assert point["joules"] == 42.0 and point["requests"] == 12 and point["seconds"] == 30.0
    assert point["joules_per_request"] == 3.5
    assert point["source"] == "mixed" and point["sources"] == ["model", "rapl"]
    assert point["joules_by_source"] == {"model": 12.0, "rapl": 30.0}
    assert combined_source(["ipmi-split"]) == "ipmi-split" and combined_source([]) is None


def test_watts_max_is_a_nodes_reported_peak_and_a_groups_highest_bucket():
    sums = {"rapl": SourceSums(30.0, 0, 20.0)}
    assert history_point(TS, sums, StepWatts(2.5, 3.0, 7.0), group=True)["watts_max"] == 3.0
    node = history_point(TS, sums, StepWatts(2.5, 3.0, 7.0), group=False)
    assert node["watts_max"] == 7.0 and node["watts_mean"] == 2.5
    assert node["joules_per_request"] is None  # no requests: no per-request figure


def test_totals_sum_the_steps_that_have_rows():
    points = [history_point(TS, {"model": SourceSums(10.0, 4, 10.0)}, None, group=True),
              history_point(TS, {}, None, group=True),
              history_point(TS, {"rapl": SourceSums(6.0, 0, 10.0)}, None, group=True)]
    assert history_totals(points) == dict(joules=16.0, requests=4, joules_per_request=4.0,
                                          sources=["model", "rapl"])
