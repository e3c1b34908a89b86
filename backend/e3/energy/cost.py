"""The paper's cost efficiency (§5.5), computed here and nowhere else (docs/energy.md):

    requests per dollar over T years of ownership = Throughput × T / (CAPEX + Power × T × Electricity)

with Throughput in requests/s, Power in watts, Electricity in $/kWh (the paper's average U.S. price,
$0.0733/kWh, by default). CAPEX and idle/peak power per server type are the paper's Table 4, kept once in
the catalogue (e3/catalog/server_types.json) and passed in by the caller. The paper takes throughput and
power at peak utilisation; a live cluster's current figures may be used instead, and the caller says so.

Pure: no database, no web framework. A figure that cannot be computed (an input missing, negative or not
finite) is None, never 0.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass

PAPER_USD_PER_KWH = 0.0733
HOURS_PER_YEAR = 365.25 * 24
SECONDS_PER_YEAR = HOURS_PER_YEAR * 3600


@dataclass(frozen=True)
class CostInputs:
    throughput_rps: float | None
    watts: float | None
    capex_usd: float | None
    usd_per_kwh: float | None


@dataclass(frozen=True)
class CostPoint:
    years: float
    requests: float  # over the period
    energy_usd: float  # electricity over the period
    total_usd: float  # CAPEX + electricity
    requests_per_usd: float


def _usable(value: float | None) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and value >= 0


def cost_efficiency(inputs: CostInputs, years: float) -> CostPoint | None:
    """Cost efficiency after `years` of ownership, or None when an input is missing or meaningless."""
    if not all(_usable(v) for v in (inputs.throughput_rps, inputs.watts, inputs.capex_usd, inputs.usd_per_kwh)):
        return None
    if not (isinstance(years, (int, float)) and math.isfinite(years) and years > 0):
        return None
    requests = inputs.throughput_rps * years * SECONDS_PER_YEAR
    energy_usd = inputs.watts / 1000 * years * HOURS_PER_YEAR * inputs.usd_per_kwh
    total_usd = inputs.capex_usd + energy_usd
    if not total_usd > 0:
        return None
    return CostPoint(years=years, requests=requests, energy_usd=energy_usd, total_usd=total_usd,
                     requests_per_usd=requests / total_usd)


def cost_over_years(inputs: CostInputs, max_years: int = 5) -> list[CostPoint | None]:
    """Cost efficiency for 1..max_years years (None where it cannot be computed), as the paper's Figure 10."""
    return [cost_efficiency(inputs, years) for years in range(1, max_years + 1)]


@dataclass(frozen=True)
class CapexPart:
    server_type: str
    count: int
    unit_usd: float | None  # list price per server (Table 4), None when the catalogue lacks the type


@dataclass(frozen=True)
class Capex:
    usd: float | None  # sum over the servers, None when a type has no price
    parts: list[CapexPart]
    missing: list[str]  # server types without a price


def capex_of(server_counts: Mapping[str, int], unit_prices: Mapping[str, float]) -> Capex:
    """CAPEX of servers counted per type at each type's list price (switches and cabling not included)."""
    parts = [CapexPart(name, count, unit_prices.get(name) if _usable(unit_prices.get(name)) else None)
             for name, count in sorted(server_counts.items()) if count > 0]
    missing = [p.server_type for p in parts if p.unit_usd is None]
    usd = None if missing else sum(p.count * p.unit_usd for p in parts)
    return Capex(usd=usd, parts=parts, missing=missing)


@dataclass(frozen=True)
class ServerPowerRange:
    """A server type's wall power at idle and at peak (Table 4), W."""

    idle_watts: float
    peak_watts: float


def watts_at_utilisation(server_counts: Mapping[str, int], power: Mapping[str, ServerPowerRange],
                         utilisation: float = 1.0) -> float | None:
    """The servers' wall power at `utilisation` (0 idle .. 1 peak), each linear from its idle to its peak watts;
    at 1.0 the cluster's peak power, the paper's §5.5 assumption. None when a type's power is unknown."""
    if not 0.0 <= utilisation <= 1.0 or any(name not in power for name, n in server_counts.items() if n > 0):
        return None
    return sum(n * (power[name].idle_watts + utilisation * (power[name].peak_watts - power[name].idle_watts))
               for name, n in server_counts.items() if n > 0)
