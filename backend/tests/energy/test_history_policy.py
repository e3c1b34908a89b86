"""The window an energy history query reads: defaults, alignment to whole steps, and the refusals naming the field."""

from datetime import datetime, timedelta, timezone

import pytest

from e3.core.errors import ValidationFailed
from e3.energy.history_policy import (MAX_POINTS, ROLLUP_STEP_S, finest_step_s, history_window,
                                      retention_cutoff)

NOW = datetime(2026, 11, 26, 12, 0, 3, tzinfo=timezone.utc)


def refused(*args) -> dict:
    with pytest.raises(ValidationFailed) as caught:
        history_window(*args)
    (error,) = caught.value.errors
    return error.as_dict()


def test_defaults_an_hour_to_now_at_the_finest_step_within_500_points():
    window = history_window(None, None, None, NOW, 30)
    assert window.step_s == ROLLUP_STEP_S and window.points == 361  # 12:00:03 widens the hour by one step
    assert window.start == datetime(2026, 11, 26, 11, 0, 0, tzinfo=timezone.utc)
    assert window.end == datetime(2026, 11, 26, 12, 0, 10, tzinfo=timezone.utc)
    day = history_window(NOW - timedelta(days=1), NOW, None, NOW, 30)
    assert day.step_s == 180 and day.points <= 500
    assert history_window(NOW - timedelta(days=1), NOW, day.step_s - 10, NOW, 30).points > 500


def test_steps_are_aligned_to_multiples_of_the_step_since_the_epoch():
    window = history_window(NOW - timedelta(minutes=7), NOW, 300, NOW, 30)
    assert window.start.timestamp() % 300 == 0 and window.end.timestamp() % 300 == 0
    assert window.step_starts() == [datetime(2026, 11, 26, 11, 50, tzinfo=timezone.utc),  # 11:53:03 in it
                                    datetime(2026, 11, 26, 11, 55, tzinfo=timezone.utc),
                                    datetime(2026, 11, 26, 12, 0, tzinfo=timezone.utc)]  # 12:00:03 in it
    instant = datetime(2026, 11, 26, 11, 0, tzinfo=timezone.utc)
    assert history_window(instant, instant, 60, NOW, 30).step_starts() == [instant]  # from == to: its one step


def test_from_after_to_is_refused_naming_from():
    error = refused(NOW, NOW - timedelta(seconds=1), None, NOW, 30)
    assert error["field"] == "from" and error["code"] == "from_after_to"


@pytest.mark.parametrize("step", [0, 5, 15, -10])
def test_a_step_below_or_not_a_multiple_of_the_rollup_step_is_refused_naming_step(step):
    error = refused(None, None, step, NOW, 30)
    assert error["field"] == "step" and error["rollup_step_s"] == ROLLUP_STEP_S


def test_a_range_past_the_retention_is_refused_naming_from():
    error = refused(NOW - timedelta(days=2, seconds=1), None, 3600, NOW, 2)
    assert error["field"] == "from" and error["retention_days"] == 2
    assert history_window(retention_cutoff(NOW, 2), None, 3600, NOW, 2).points == 49
    assert refused(None, NOW - timedelta(days=3), None, NOW, 2)["field"] == "from"  # default from, 1 h before to


def test_more_than_2000_points_is_refused_naming_step_with_the_step_that_would_do():
    start = NOW - timedelta(days=1)
    error = refused(start, NOW, 10, NOW, 30)
    needed = finest_step_s(start, NOW, MAX_POINTS)
    assert error["field"] == "step" and f"at least {needed} s" in error["message"]
    assert history_window(start, NOW, needed, NOW, 30).points <= MAX_POINTS


def test_steps_and_times_beyond_a_calendars_reach_are_refused_naming_them():
    assert refused(None, None, 10**18, NOW, 30)["field"] == "step"
    assert refused(NOW, datetime.max.replace(tzinfo=timezone.utc), None, NOW, 30)["field"] == "to"


def test_times_without_a_time_zone_are_refused_naming_them():
    assert refused(datetime(2026, 11, 26, 11), None, None, NOW, 30)["field"] == "from"
    assert refused(None, datetime(2026, 11, 26, 11), None, NOW, 30)["field"] == "to"
