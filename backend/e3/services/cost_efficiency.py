"""Cost efficiency served (docs/energy.md): a live cluster's, from its servers (the database) and its current
throughput and power (the live channel's totals, as the dashboard shows them, passed in by the caller), and a
what-if's, from the request. The formula and the Table 4 arithmetic are e3.energy.cost; this module gathers
the inputs and says where each comes from."""

from sqlalchemy.orm import Session

from e3 import catalog
from e3.core.errors import FieldError, ValidationFailed
from e3.energy.cost import (PAPER_USD_PER_KWH, CostInputs, ServerPowerRange, capex_of, cost_over_years,
                            watts_at_utilisation)
from e3.schemas.cost_efficiency import CostWhatIf
from e3.services.clusters import cluster_summaries, get_cluster

Figure = tuple[float | None, str | None]  # (value, source)


def cluster_servers(session: Session, cluster_name: str) -> dict[str, int]:
    """Servers per server type of the named cluster (NotFound if there is none)."""
    return cluster_summaries(session, [get_cluster(session, cluster_name)])[0]["server_types"]


def live_cost_efficiency(cluster_name: str, servers: dict[str, int], totals: dict, years: int,
                         price_per_kwh: float | None) -> dict:
    """The cluster's cost efficiency at its current throughput and power (`totals`: the live channel's)."""
    if not totals["nodes_reporting"]:
        reason = f"no node of cluster '{cluster_name}' is reporting: there is no live power or throughput"
    elif totals["throughput_rps"] is None:
        reason = ("no live throughput: no application deployed on the cluster reported requests at its entry "
                  "over the last second")
    else:
        reason = None
    power = totals["power"]
    return _answer(cluster=cluster_name, basis="live", servers=servers,
                   throughput=(totals["throughput_rps"], "live"),
                   power=(power["watts"], power["source"]) if totals["nodes_reporting"] else (None, None),
                   years=years, price_per_kwh=price_per_kwh, complete=totals["complete"], reason=reason)


def what_if_cost_efficiency(request: CostWhatIf) -> dict:
    """The cost efficiency of the servers, throughput and power (or utilisation) the request gives.
    Raises ValidationFailed naming the field for an unknown server type, or both power and utilisation."""
    types = catalog.server_types()
    errors = [FieldError(f"servers.{name}", f"unknown server type '{name}'; valid types: {', '.join(sorted(types))}",
                         "unknown_server_type") for name in sorted(request.servers) if name not in types]
    if request.power_watts is not None and request.utilisation is not None:
        errors.append(FieldError("utilisation", "give power_watts or utilisation, not both", "conflict"))
    if errors:
        raise ValidationFailed(errors)
    if request.power_watts is not None:
        power = (request.power_watts, "request")
    else:
        table = {name: ServerPowerRange(t.idle_watts, t.peak_watts) for name, t in types.items()}
        utilisation = 1.0 if request.utilisation is None else request.utilisation
        power = (watts_at_utilisation(request.servers, table, utilisation), "model")
    return _answer(cluster=None, basis="what_if", servers=request.servers,
                   throughput=(request.throughput_rps, "request"), power=power, years=request.years,
                   price_per_kwh=request.price_per_kwh, complete=True, reason=None)


def _answer(*, cluster: str | None, basis: str, servers: dict[str, int], throughput: Figure, power: Figure,
            years: int, price_per_kwh: float | None, complete: bool, reason: str | None) -> dict:
    price = (PAPER_USD_PER_KWH, "paper") if price_per_kwh is None else (price_per_kwh, "request")
    capex = capex_of(servers, {name: t.cost_usd for name, t in catalog.server_types().items()})
    if capex.missing and reason is None:
        reason = f"no list price (paper Table 4) for server type {', '.join(capex.missing)}"
    points = [] if reason else cost_over_years(
        CostInputs(throughput_rps=throughput[0], watts=power[0], capex_usd=capex.usd, usd_per_kwh=price[0]), years)
    if None in points:
        points, reason = [], "the inputs give no cost efficiency (a figure is missing, or nothing costs anything)"
    return dict(cluster=cluster, basis=basis, years=years,
                price_per_kwh=_figure(price), throughput_rps=_figure(throughput), power_watts=_figure(power),
                capex=dict(usd=capex.usd, source="model", parts=[vars(p) for p in capex.parts]),
                complete=complete, points=[vars(p) for p in points], unavailable=reason)


def _figure(figure: Figure) -> dict:
    return dict(value=figure[0], source=figure[1])
