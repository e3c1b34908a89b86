"""The paper's cost efficiency (§5.5) as the API serves it: for a live cluster, and for a what-if preview."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_YEARS = 50
MAX_SERVERS = 1_000_000  # per type
# Far above any cluster, low enough that no figure overflows a float over MAX_YEARS
MAX_RPS = 1e12
MAX_WATTS = 1e12
# Above this a price is almost surely in cents or per MWh: refused rather than believed (as the dashboard does).
MAX_USD_PER_KWH = 5.0

YEARS_DESCRIPTION = "Years of ownership: the answer gives the cost efficiency after 1, 2, ... up to this many"
PRICE_DESCRIPTION = "Electricity price in $/kWh (default: the paper's $0.0733, the U.S. average)"


class CostWhatIf(BaseModel):
    """A cluster that need not exist: its servers, and the throughput and power to price."""

    model_config = ConfigDict(extra="forbid")

    servers: dict[str, Annotated[int, Field(ge=1, le=MAX_SERVERS)]] = Field(
        min_length=1, description="Servers per server type (paper Table 4 names), e.g. {\"type2-smartnic\": 2}")
    throughput_rps: float = Field(ge=0, le=MAX_RPS, allow_inf_nan=False, description="Requests/s the cluster serves")
    power_watts: float | None = Field(None, ge=0, le=MAX_WATTS, allow_inf_nan=False,
                                      description="The cluster's wall power, W; or give utilisation (not both)")
    utilisation: float | None = Field(None, ge=0, le=1, allow_inf_nan=False,
                                      description="0 idle .. 1 peak: power from Table 4 idle/peak watts, linear "
                                                  "between. Neither this nor power_watts: peak (the paper's §5.5)")
    years: int = Field(5, ge=1, le=MAX_YEARS, description=YEARS_DESCRIPTION)
    price_per_kwh: float | None = Field(None, gt=0, le=MAX_USD_PER_KWH, allow_inf_nan=False,
                                        description=PRICE_DESCRIPTION)


class CostFigure(BaseModel):
    value: float | None = Field(description="null: not known (see `unavailable`)")
    source: str | None = Field(description="where the figure comes from: model (paper Table 4), paper, request "
                                           "(given by the caller), live (the cluster's heartbeats), or the "
                                           "power source of the nodes reporting (rapl | ipmi | model | mixed)")


class CapexPartPublic(BaseModel):
    server_type: str
    count: int
    unit_usd: float | None = Field(description="list price per server, paper Table 4")


class CapexPublic(BaseModel):
    usd: float | None = Field(description="servers x list price; switches and cabling not included")
    source: Literal["model"] = "model"
    parts: list[CapexPartPublic]


class CostPointPublic(BaseModel):
    years: int
    requests: float = Field(description="requests served over the period")
    energy_usd: float = Field(description="electricity over the period, $")
    total_usd: float = Field(description="CAPEX + electricity, $")
    requests_per_usd: float = Field(description="the cost efficiency: requests per dollar of ownership")


class CostEfficiencyPublic(BaseModel):
    """Throughput x T / (CAPEX + Power x T x Electricity) after 1..`years` years, with each input and its source."""

    cluster: str | None = Field(description="the live cluster priced; null for a what-if")
    basis: Literal["live", "what_if"] = Field(description="live: the cluster's current throughput and power (the "
                                                          "paper uses peak figures); what_if: the request's")
    formula: str = "Throughput x T / (CAPEX + Power x T x Electricity)"
    years: int
    price_per_kwh: CostFigure
    capex: CapexPublic
    throughput_rps: CostFigure
    power_watts: CostFigure
    complete: bool = Field(description="false: some of the cluster's nodes are not reporting, so the live figures "
                                       "leave them out")
    points: list[CostPointPublic] = Field(description="one per year of ownership, 1..years; empty when unavailable")
    unavailable: str | None = Field(description="why there are no points, for a person; null when there are")
