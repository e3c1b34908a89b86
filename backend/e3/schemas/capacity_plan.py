"""The capacity planner (the paper's Figure 10 as a tool): a request, and the ranked candidate clusters."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from e3.energy.capacity_plan import DEFAULT_MAX_SERVERS, MAX_SERVERS
from e3.schemas.cost_efficiency import MAX_RPS, MAX_USD_PER_KWH, MAX_YEARS, PRICE_DESCRIPTION
from e3.schemas.dag import NAME_PATTERN

MAX_APPLICATIONS = 8
MAX_CUSTOM_TYPES = 5
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]


class PlanApplicationRef(BaseModel):
    """A stored application by `name`, or an inline DAG spec document (`spec`), at an optional load of its own."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, description="A stored application (its latest version); or give `spec`")
    spec: dict | None = Field(None, description="An inline DAG spec document (apiVersion e3/v1, kind Application), "
                                                "as `e3 apply` takes it")
    load_rps: float | None = Field(None, gt=0, le=MAX_RPS, allow_inf_nan=False,
                                   description="This application's offered load, requests/s at its entry; "
                                               "default: its even share of what the other applications leave of "
                                               "the request's `load_rps`")


class CustomServerType(BaseModel):
    """An operator's own server type, in the catalogue's shape (paper Table 4's columns)."""

    model_config = ConfigDict(extra="forbid")

    name: Name = Field(description="Its name in the answer; not a catalogue type's")
    cost_usd: float = Field(gt=0, le=1e9, allow_inf_nan=False, description="CAPEX: list price per server, $")
    idle_watts: float = Field(ge=0, le=1e6, allow_inf_nan=False, description="Wall power when idle, W")
    peak_watts: float = Field(gt=0, le=1e6, allow_inf_nan=False, description="Wall power at peak, W (>= idle)")
    host_cores: int = Field(ge=1, le=1024)
    host_core_class: Literal["beefy", "wimpy"] = Field(
        "beefy", description="beefy: Xeon-class, calibrated as paper Table 1's DPDK host; wimpy: cnMIPS-class")
    host_memory_gb: int = Field(64, ge=1, le=65536)
    smartnics: int = Field(0, ge=0, le=16, description="LiquidIO-class SmartNICs per server")
    smartnic_cores: int = Field(12, ge=1, le=1024, description="Cores per SmartNIC")
    smartnic_memory_gb: int = Field(4, ge=1, le=1024, description="Memory per SmartNIC, GB")
    bandwidth_gbps: int = Field(20, ge=1, le=10000, description="The server's network ports, together")


class PlanCreate(BaseModel):
    """Applications, a target load and years of ownership: which clusters to buy, ranked by cost efficiency."""

    model_config = ConfigDict(extra="forbid")

    applications: list[PlanApplicationRef] = Field(min_length=1, max_length=MAX_APPLICATIONS,
                                                   description="Placed together on every candidate cluster")
    load_rps: float = Field(gt=0, le=MAX_RPS, allow_inf_nan=False,
                            description="Total offered load, requests/s, shared evenly by the applications that "
                                        "give no `load_rps` of their own")
    years: int = Field(5, ge=1, le=MAX_YEARS, description="Years of ownership: cost efficiency after 1..years")
    price_per_kwh: float | None = Field(None, gt=0, le=MAX_USD_PER_KWH, allow_inf_nan=False,
                                        description=PRICE_DESCRIPTION)
    server_types: list[str] | None = Field(None, min_length=1, max_length=20,
                                           description="Catalogue server types to consider (default: all of "
                                                       "paper Table 4)")
    custom_server_types: list[CustomServerType] = Field(default_factory=list, max_length=MAX_CUSTOM_TYPES,
                                                        description="Server types of your own, considered too")
    max_servers: int = Field(DEFAULT_MAX_SERVERS, ge=1, le=MAX_SERVERS,
                             description="Most servers of one type in a candidate")
    max_p99_latency_ms: float | None = Field(None, gt=0, allow_inf_nan=False,
                                             description="Optional bound: a candidate predicted over it is infeasible")


class PlanCostPoint(BaseModel):
    years: int
    requests_per_dollar: float = Field(description="Throughput x T / (CAPEX + Power x T x Electricity)")
    total_cost_usd: float = Field(description="CAPEX + electricity over the period, $")
    energy_usd: float = Field(description="Electricity over the period, $")


class PlanPredicted(BaseModel):
    throughput_rps: float | None = Field(description="Served at the offered load (feasible: the load)")
    capacity_rps: float | None = Field(description="Entry rate at which the placement saturates; null when the "
                                                   "placement failed")
    avg_latency_ms: float | None = Field(description="Average along the critical path; null when saturated")
    p99_latency_ms: float | None
    joules_per_request: float | None = Field(description="`power_watts` / throughput")
    bottleneck: str | None = Field(description="The resource that saturates first, in words")


class PlanInstances(BaseModel):
    server_type: str
    node_kind: Literal["host", "smartnic"]
    count: int = Field(description="Instances (primaries and backups) of the DAG node on such nodes")


class PlanDagNode(BaseModel):
    application: str
    dag_node: str
    service: str
    instances: list[PlanInstances]


class PlanCandidate(BaseModel):
    rank: int = Field(description="1 = the most cost efficient feasible candidate; infeasible ones come last")
    servers: dict[str, int] = Field(description="Server type -> count")
    feasible: bool
    reason: str | None = Field(description="Why the candidate cannot carry the load; null when it can")
    capex_usd: float | None = Field(description="Servers x list price (Table 4, or the custom type's)")
    power_watts: float | None = Field(description="Wall power at the offered load; null when infeasible")
    utilisation: float | None = Field(description="0 idle .. 1 peak, the power model's (see assumptions)")
    cost_efficiency: list[PlanCostPoint] = Field(description="One per year, 1..years; empty when infeasible")
    predicted: PlanPredicted
    placement: list[PlanDagNode] = Field(description="Per DAG node, where HCM put its instances; empty when "
                                                     "infeasible")


class PlanPublic(BaseModel):
    """Candidate clusters ranked by predicted cost efficiency, every figure the model's."""

    source: Literal["model"] = "model"
    assumptions: list[str] = Field(description="What the figures assume, in words (show them beside the figures)")
    load_rps: float = Field(description="Total offered load, requests/s")
    applications: list[dict] = Field(description="Each application placed, with its load: {name, load_rps}")
    years: list[int] = Field(description="The years of ownership priced: 1..years")
    price_per_kwh: float
    price_source: Literal["paper", "request"]
    plans: list[PlanCandidate] = Field(description="Ranked: the feasible by requests per dollar after the last "
                                                   "year; then, per server type, the largest count that falls "
                                                   "short")
    evaluated: int = Field(description="Candidate clusters placed and predicted (some are not listed: counts "
                                       "past the first feasible one by more than 2, and smaller infeasible ones)")
