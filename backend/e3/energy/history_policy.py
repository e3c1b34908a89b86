"""Energy history's fixed terms: the rollup step, how long rollups are kept, and the window a query may ask for.

The controller writes one `energy_rollups` row per node and per instance each ROLLUP_STEP_S; a query reads them
back in steps that are whole multiples of it, aligned to multiples of the step since the epoch, so the same
instant always falls in the same point whatever window is asked for (docs/energy.md, "Energy history").

Pure: no database, no web framework, no clock (`now` is given).
"""

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from e3.core.errors import FieldError, ValidationFailed

ROLLUP_STEP_S = 10  # seconds each rollup row covers; the controller's step and the finest a query may ask for
DEFAULT_RETENTION_DAYS = 30  # E3_ENERGY_RETENTION_DAYS (e3.core.config) overrides it
DEFAULT_WINDOW = timedelta(hours=1)  # without `from`: this long before `to`
DEFAULT_POINTS = 500  # without `step`: the finest step giving at most this many points
MAX_POINTS = 2000  # a chart's worth; a finer step over a longer range is refused
MAX_STEP_S = 366 * 86400  # a year: coarser says nothing more (and keeps every instant a datetime can hold)

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(9000, 1, 1, tzinfo=timezone.utc)  # a year's step after it is still a datetime


@dataclass(frozen=True)
class HistoryWindow:
    """Whole steps [start, end): the first starts at or before the asked `from`, the last ends at or after `to`."""

    start: datetime
    end: datetime
    step_s: int

    @property
    def points(self) -> int:
        return round((self.end - self.start).total_seconds()) // self.step_s

    def step_starts(self) -> list[datetime]:
        return [self.start + timedelta(seconds=i * self.step_s) for i in range(self.points)]


def retention_cutoff(now: datetime, retention_days: int) -> datetime:
    """The oldest instant still kept: rows of steps starting before it are dropped, queries reaching it refused."""
    return now - timedelta(days=retention_days)


def _aligned(start: datetime, end: datetime, step_s: int) -> HistoryWindow:
    first = math.floor((start - EPOCH).total_seconds() / step_s) * step_s
    last = math.ceil((end - EPOCH).total_seconds() / step_s) * step_s
    last = max(last, first + step_s)  # from == to on a step's start: that one step
    return HistoryWindow(EPOCH + timedelta(seconds=first), EPOCH + timedelta(seconds=last), step_s)


def finest_step_s(start: datetime, end: datetime, max_points: int = DEFAULT_POINTS) -> int:
    """The smallest multiple of ROLLUP_STEP_S that covers [start, end) in at most `max_points` aligned steps
    (the default step)."""
    span = max((end - start).total_seconds(), 0.0)
    step = max(1, math.ceil(span / max_points / ROLLUP_STEP_S)) * ROLLUP_STEP_S
    while _aligned(start, end, step).points > max_points:  # alignment can add a step at each end
        step += ROLLUP_STEP_S
    return step


def history_window(start: datetime | None, end: datetime | None, step_s: int | None, now: datetime,
                   retention_days: int) -> HistoryWindow:
    """The window a query reads; ValidationFailed (422) naming the field for: a time without a time zone,
    from > to, a step below ROLLUP_STEP_S or not a multiple of it, more than MAX_POINTS points, or a `from`
    older than the retention."""
    for field, value in (("from", start), ("to", end)):
        if value is not None and value.tzinfo is None:
            raise ValidationFailed([FieldError(field, "needs a time zone, e.g. 2026-11-21T10:00:00Z",
                                               "naive_datetime")])
    end = end or now
    if end > LATEST:
        raise ValidationFailed([FieldError("to", f"must be before {LATEST.isoformat()}", "out_of_range")])
    start = start or end - DEFAULT_WINDOW
    if start > end:
        raise ValidationFailed([FieldError("from", f"is after `to` ({end.isoformat()})", "from_after_to")])
    cutoff = retention_cutoff(now, retention_days)
    if start < cutoff:
        raise ValidationFailed([FieldError(
            "from", f"reaches past the retention: energy history is kept {retention_days} days, since "
                    f"{cutoff.isoformat()}", "beyond_retention", {"retention_days": retention_days})])
    if step_s is None:
        step_s = finest_step_s(start, end)
    elif step_s < ROLLUP_STEP_S or step_s % ROLLUP_STEP_S:
        raise ValidationFailed([FieldError(
            "step", f"must be a multiple of the rollup step, {ROLLUP_STEP_S} s (got {step_s})", "step_not_rollup",
            {"rollup_step_s": ROLLUP_STEP_S})])
    elif step_s > MAX_STEP_S:
        raise ValidationFailed([FieldError("step", f"must be at most {MAX_STEP_S} s (a year)", "step_too_long")])
    window = _aligned(start, end, step_s)
    if window.points > MAX_POINTS:
        raise ValidationFailed([FieldError(
            "step", f"gives {window.points} points over this range, more than {MAX_POINTS}: ask for a step of at "
                    f"least {finest_step_s(start, end, MAX_POINTS)} s, or a shorter range", "too_many_points",
            {"max_points": MAX_POINTS})])
    return window

