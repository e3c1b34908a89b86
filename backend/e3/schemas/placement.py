"""Placement preview family: a dry run of one or several algorithms, side by side."""

from pydantic import BaseModel, ConfigDict, Field

from e3.schemas.common import INT4_MAX

PREVIEW_DEFAULT_ALGORITHMS = ["hcm", "annealing", "ilp", "first_fit"]


class PlacementPreviewRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cluster: str = Field(description="Cluster name; its existing deployments' reservations count")
    application: str | None = Field(None, description="A stored application (or give `spec`)")
    version: int | None = Field(None, ge=1, le=INT4_MAX, description="Application version; the latest when omitted")
    spec: dict | None = Field(None, description="An inline DAG spec document instead of a stored application")
    algorithms: list[str] = Field(default_factory=lambda: list(PREVIEW_DEFAULT_ALGORITHMS), min_length=1,
                                  max_length=5)
    offered_rps: float | None = Field(None, gt=0, description="Entry request rate; the knee when omitted")
    ilp_time_limit_s: float = Field(10.0, gt=0, le=120, description="Time cap of the ILP")
    seed: int = Field(0, ge=0, description="Seed of annealing and random")
    anti_affinity: bool = Field(False, description="Put the shards of each DAG node on distinct servers")
    include_assignments: bool = Field(False, description="List every instance's node in each result")


class PreviewResult(BaseModel):
    algorithm: str
    placed: bool
    runtime_ms: float | None = Field(None, description="The algorithm's own running time (measured here)")
    optimal: bool | None = Field(None, description="ILP: false when it stopped at its time cap")
    objective: str = Field("", description="What the algorithm optimises, in a line")
    optimality: str | None = Field(None, description="What `optimal` claims, in words: optimal for its own "
                                                     "objective (never for joules or latency), stopped at its cap, "
                                                     "or a heuristic")
    error: dict | None = None
    prediction: dict | None = Field(None, description="Predicted figures; each carries source: model")
    summary: dict | None = Field(None, description="Instances per node kind and servers used")
    details: dict = Field(default_factory=dict)
    assignments: list[dict] | None = None


class PlacementPreview(BaseModel):
    application: str
    cluster: str
    instances: int
    baseline: str = Field(description="The algorithm the ratios in `comparison` are relative to")
    results: list[PreviewResult]
    comparison: dict = Field(description="Per algorithm: ratios of requests per joule and latency to the baseline")
