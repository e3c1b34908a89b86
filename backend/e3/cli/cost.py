"""`e3 cost CLUSTER` and `e3 cost --what-if FILE`: the paper's cost efficiency (§5.5), computed by the API."""

from pathlib import Path

import typer
import yaml

from e3.client.api import Api, ClientError
from e3.cli.output import Output, console, emit

POINT_COLUMNS = ["years", "energy_usd", "total_usd", "requests_per_usd"]


def _what_if_body(path: Path) -> dict:
    if not path.is_file():
        raise ClientError(f"{path}: no such file")
    try:
        body = yaml.safe_load(path.read_text())  # JSON is YAML too
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ClientError(f"{path}: not YAML or JSON ({exc})") from exc
    if not isinstance(body, dict):
        raise ClientError(f"{path}: expected a mapping such as {{servers: {{type2-smartnic: 2}}, throughput_rps: 1e5}}")
    return body


def _figure(figure: dict, unit: str) -> str:
    value = "unknown" if figure["value"] is None else f"{figure['value']:,.6g} {unit}"
    return f"{value} (source: {figure['source'] or 'none'})"


def _print(answer: dict) -> None:
    capex = answer["capex"]
    parts = " + ".join(f"{p['count']} x {p['server_type']} at ${p['unit_usd']:,.0f}" if p["unit_usd"] is not None
                       else f"{p['count']} x {p['server_type']} (no price)" for p in capex["parts"])
    title = f"cluster {answer['cluster']}, current figures" if answer["basis"] == "live" else "what-if"
    console.print(f"cost efficiency, {title}: {answer['formula']}")
    usd = "unknown" if capex["usd"] is None else f"${capex['usd']:,.0f}"
    console.print(f"  CAPEX        {usd} = {parts} (source: {capex['source']})")
    console.print(f"  throughput   {_figure(answer['throughput_rps'], 'req/s')}")
    console.print(f"  power        {_figure(answer['power_watts'], 'W')}")
    console.print(f"  electricity  {_figure(answer['price_per_kwh'], '$/kWh')}")
    if not answer["complete"]:
        console.print("  some nodes are not reporting: the live figures leave them out")
    if answer["points"]:
        rows = [dict(years=p["years"], energy_usd=f"${p['energy_usd']:,.2f}", total_usd=f"${p['total_usd']:,.2f}",
                     requests_per_usd=f"{p['requests_per_usd']:,.0f}") for p in answer["points"]]
        emit(rows, Output.table, POINT_COLUMNS)


def show_cost(cluster: str | None, what_if: Path | None, years: int | None, price: float | None,
              output: Output) -> None:
    if (cluster is None) == (what_if is None):
        raise ClientError("give a CLUSTER or --what-if FILE (not both)", exit_code=2)
    api = Api()
    if what_if is not None:
        body = _what_if_body(what_if)
        body.update({k: v for k, v in dict(years=years, price_per_kwh=price).items() if v is not None})
        answer = api.post("/api/v1/cost-efficiency", json=body).json()
    else:
        answer = api.get(f"/api/v1/clusters/{cluster}/cost-efficiency", years=years, price_per_kwh=price)
    if output == Output.json:
        emit(answer, output)
    else:
        _print(answer)
    if answer["unavailable"]:
        raise ClientError(f"no cost efficiency: {answer['unavailable']}")


def register(app: typer.Typer) -> None:
    @app.command()
    def cost(cluster: str = typer.Argument(None, help="A cluster: priced at its current throughput and power"),
             what_if: Path = typer.Option(None, "--what-if", help="YAML/JSON: servers (type: count), "
                                                                  "throughput_rps, power_watts or utilisation"),
             years: int = typer.Option(None, "--years", help="Years of ownership (default 5)"),
             price: float = typer.Option(None, "--price", help="Electricity in $/kWh (default the paper's 0.0733)"),
             output: Output = typer.Option(Output.table, "--output")) -> None:
        """The paper's cost efficiency (requests per $ over 1..N years of ownership) of a cluster or a what-if;
        exits 1 when it cannot be computed (for example no live throughput), saying why."""
        show_cost(cluster, what_if, years, price, output)
