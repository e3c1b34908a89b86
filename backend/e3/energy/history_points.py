"""Energy history's points: a step's figures from the sums the database made of its rollup rows.

A step without rows has no figures (null, not 0), so a chart shows a gap rather than a false zero.

Power in a step (docs/energy.md, "Energy history"): each rollup bucket's watts is Σ over its rows of
joules / seconds (each row's mean power while it reported: a node's, or the share an instance was given), and
`watts_mean` is the mean of that over the step's buckets that have rows. `watts_max` is, for one node, the
highest power its heartbeats reported (its rows' `watts_max`); for a group (an application's instances, a
cluster's nodes), whose members peak at different instants, the highest bucket watts in the step.

Pure: no database, no web framework.
"""

from dataclasses import dataclass
from datetime import datetime

from e3.energy.joules import joules_per_request_over

MIXED = "mixed"  # a step (or a row) whose energy came from more than one source


@dataclass(frozen=True)
class SourceSums:
    """A step's rows of one source, summed."""

    joules: float
    requests: int
    seconds: float


@dataclass(frozen=True)
class StepWatts:
    """A step's power, from its rollup buckets' watts (see the module's docstring)."""

    mean: float | None  # mean over the buckets with rows of Σ joules / seconds
    bucket_max: float | None  # the highest of those bucket watts
    row_max: float | None  # the highest `watts_max` of the step's rows


def combined_source(sources: list[str]) -> str | None:
    """The one source of a step's energy; `mixed` when there were several; None when there was none."""
    distinct = set(sources)
    if not distinct:
        return None
    return distinct.pop() if len(distinct) == 1 else MIXED


def history_point(ts: datetime, by_source: dict[str, SourceSums], watts: StepWatts | None, group: bool) -> dict:
    """One step's point: its sums over every source, its power, joules per request and where it came from.
    `group`: the rows are several nodes' or instances' (watts_max is then the highest bucket watts)."""
    if not by_source:
        return dict(ts=ts, joules=None, requests=None, seconds=None, watts_mean=None, watts_max=None,
                    joules_per_request=None, source=None, sources=[], joules_by_source={})
    sources = sorted(by_source)
    joules = sum(by_source[s].joules for s in sources)
    requests = sum(by_source[s].requests for s in sources)
    watts = watts or StepWatts(None, None, None)
    return dict(ts=ts, joules=joules, requests=requests, seconds=sum(by_source[s].seconds for s in sources),
                watts_mean=watts.mean, watts_max=watts.bucket_max if group else watts.row_max,
                joules_per_request=joules_per_request_over(joules, requests), source=combined_source(sources),
                sources=sources, joules_by_source={s: by_source[s].joules for s in sources})


def history_totals(points: list[dict]) -> dict:
    """The window's sums over its points; null figures when no step had rows."""
    reported = [p for p in points if p["joules"] is not None]
    if not reported:
        return dict(joules=None, requests=None, joules_per_request=None, sources=[])
    joules = sum(p["joules"] for p in reported)
    requests = sum(p["requests"] for p in reported)
    return dict(joules=joules, requests=requests, joules_per_request=joules_per_request_over(joules, requests),
                sources=sorted({s for p in reported for s in p["sources"]}))
