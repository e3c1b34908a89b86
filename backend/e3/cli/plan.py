"""`e3 plan -f app.yaml --load 1e6 --years 5`: the capacity planner (the paper's Figure 10 as a tool), computed
by the API (POST /api/v1/plans). A table for people, with the assumptions under it; JSON for CI."""

from pathlib import Path

import typer

from e3.cli.output import Output, console, emit
from e3.cli.resources import _read_document
from e3.client.api import Api, ClientError

COLUMNS = ["rank", "servers", "capex_usd", "watts", "p99_ms"]


def _spec(path: Path) -> dict:
    from e3.schemas.documents import parse_document

    body, content_type = _read_document(path)
    try:
        return parse_document(body, content_type)
    except Exception as exc:
        raise ClientError(f"{path}: {exc}") from exc


def plan_body(files: list[Path], apps: list[str], load: float, years: int | None, price: float | None,
              server_types: str | None, max_servers: int | None) -> dict:
    if not files and not apps:
        raise ClientError("give at least one application: -f FILE or --app NAME", exit_code=2)
    body = {"applications": [{"spec": _spec(f)} for f in files] + [{"name": name} for name in apps],
            "load_rps": load}
    if server_types:
        body["server_types"] = [t.strip() for t in server_types.split(",") if t.strip()]
    optional = dict(years=years, price_per_kwh=price, max_servers=max_servers)
    return body | {k: v for k, v in optional.items() if v is not None}


def _row(plan: dict) -> dict:
    row = dict(rank=plan["rank"], servers=" + ".join(f"{n} x {t}" for t, n in plan["servers"].items()),
               capex_usd=f"${plan['capex_usd']:,.0f}" if plan["capex_usd"] is not None else "",
               watts=f"{plan['power_watts']:,.0f}" if plan["power_watts"] is not None else "",
               p99_ms=f"{plan['predicted']['p99_latency_ms']:.3f}" if plan["feasible"] else "")
    for point in plan["cost_efficiency"]:
        row[f"req/$ {point['years']}y"] = f"{point['requests_per_dollar']:,.0f}"
    row["feasible"] = "yes" if plan["feasible"] else "no (see below)"
    return row


def show_plan(answer: dict) -> None:
    rows = [_row(p) for p in answer["plans"]]
    years = [f"req/$ {y}y" for y in answer["years"]]
    apps = ", ".join(f"{a['name']} at {a['load_rps']:,.0f} req/s" for a in answer["applications"])
    emit(rows, Output.table, COLUMNS + years + ["feasible"],
         title=f"capacity plan: {apps}; {answer['evaluated']} candidates evaluated (source: model)")
    short = [p for p in answer["plans"] if not p["feasible"]]
    if short:
        console.print("infeasible:")
    for p in short:
        servers = " + ".join(f"{n} x {t}" for t, n in p["servers"].items())
        console.print(f"  {p['rank']}. {servers}: {p['reason']}", highlight=False, soft_wrap=True)
    console.print("assumptions:")
    for line in answer["assumptions"]:
        console.print(f"  - {line}", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    @app.command()
    def plan(files: list[Path] = typer.Option([], "-f", "--file", help="Application DAG spec, YAML or JSON (repeat)"),
             apps: list[str] = typer.Option([], "--app", help="A stored application (repeat)"),
             load: float = typer.Option(..., "--load", help="Total offered load, requests/s (e.g. 1e6)"),
             years: int = typer.Option(None, "--years", help="Years of ownership (default 5)"),
             price: float = typer.Option(None, "--price-per-kwh", help="Electricity, $/kWh (default the paper's "
                                                                       "0.0733)"),
             server_types: str = typer.Option(None, "--server-types", help="Comma-separated catalogue types "
                                                                           "(default: all of Table 4)"),
             max_servers: int = typer.Option(None, "--max-servers", help="Most servers of one type (default 16)"),
             output: Output = typer.Option(Output.table, "--output")) -> None:
        """Rank cluster configurations for the applications at the load by predicted cost efficiency (requests
        per $ over 1..N years), with each one's CAPEX, watts and latency; exits 1 when none carries the load."""
        body = plan_body(files, apps, load, years, price, server_types, max_servers)
        answer = Api(timeout=120).post("/api/v1/plans", json=body).json()
        if output == Output.json:
            emit(answer, output)
        else:
            show_plan(answer)
        if not any(p["feasible"] for p in answer["plans"]):
            raise ClientError("no candidate cluster carries the load (see the reasons above)")
