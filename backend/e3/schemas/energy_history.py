"""Energy history as the API serves it: an application's, a cluster's or a node's energy per step over a window."""

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FROM_DESCRIPTION = ("Start (ISO 8601 with a time zone); default: an hour before `to`. Widened to the start of its "
                    "step; refused when older than the retention (E3_ENERGY_RETENTION_DAYS)")
TO_DESCRIPTION = "End (ISO 8601 with a time zone); default: now. Widened to the end of its step"
STEP_DESCRIPTION = ("Seconds per point: a multiple of the rollup step (10 s), at most 2,000 points; default: the "
                    "finest giving at most 500 points")


class EnergyScope(BaseModel):
    kind: Literal["application", "cluster", "node"]
    name: str = Field(description="the application's, cluster's or node's name")
    cluster: str | None = Field(description="the cluster: the one asked for (application), the cluster itself, "
                                            "or the node's")
    node_id: str | None = Field(description="the node's id (kind node)")


class EnergyPoint(BaseModel):
    """One step: null figures (and no sources) when no rollup covers it, a gap rather than a zero."""

    ts: datetime = Field(description="the step's start")
    joules: float | None = Field(description="energy in the step, J")
    requests: int | None = Field(description="requests completed in the step")
    seconds: float | None = Field(description="time the heartbeats covered, summed over the rows")
    watts_mean: float | None = Field(description="mean over the step's 10 s buckets of Σ rows' joules / seconds")
    watts_max: float | None = Field(description="a node: the highest power it reported; an application or "
                                                "cluster: the highest 10 s bucket's watts")
    joules_per_request: float | None = Field(description="joules / requests; null without requests")
    source: str | None = Field(description="rapl | ipmi | ipmi-split | model, mixed when several, null when none")
    sources: list[str] = Field(description="every source of the step's rows")
    joules_by_source: dict[str, float] = Field(description="the step's joules per source")


class EnergyTotals(BaseModel):
    joules: float | None
    requests: int | None
    joules_per_request: float | None
    sources: list[str]


class EnergyHistoryPublic(BaseModel):
    """Energy per step over [from, to): every step a point, aligned to multiples of the step since the epoch."""

    model_config = ConfigDict(populate_by_name=True)

    scope: EnergyScope
    from_: datetime = Field(alias="from", description="the first step's start")
    to: datetime = Field(description="the last step's end")
    step_s: int
    rollup_step_s: int = Field(description="the step the controller writes rollups at, s")
    retention_days: int = Field(description="rollups older than this are dropped")
    points: list[EnergyPoint]
    totals: EnergyTotals
