"""`e3 energy APP | --cluster NAME | --node ID`: energy history per step (joules, requests, watts, J/request, source),
read from the API's rollups, as a table, JSON (the API's answer) or CSV."""

import csv
import re
import sys
from datetime import datetime, timedelta, timezone
from enum import Enum

import typer

from e3.client.api import Api, ClientError
from e3.cli.output import Output, console, emit

# the table's headings for the point's fields
TABLE_COLUMNS = {"ts": "ts", "watts_mean": "watts mean", "watts_max": "watts max", "joules": "joules",
                 "requests": "requests", "joules_per_request": "J/req", "source": "source"}
CSV_COLUMNS = ["ts", "joules", "requests", "seconds", "watts_mean", "watts_max", "joules_per_request", "source",
               "sources"]
_AGO = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class EnergyOutput(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


def parse_instant(value: str, option: str, now: datetime) -> datetime:
    """`10m`, `1h`, `2d`, `30s` (that long before `now`) or an ISO 8601 time (without a zone: UTC)."""
    ago = _AGO.match(value)
    if ago:
        return now - timedelta(seconds=float(ago.group(1)) * _UNIT_S[ago.group(2)])
    try:
        instant = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ClientError(f"{option}: expected a duration ago such as 10m, 1h, 2d, or an ISO 8601 time "
                          f"(got {value!r})", exit_code=2) from None
    return instant if instant.tzinfo else instant.replace(tzinfo=timezone.utc)


def _path(application: str | None, cluster: str | None, node: str | None) -> tuple[str, dict]:
    """The API path for the one scope given, and its extra parameters."""
    if application is not None and node is None:
        return f"/api/v1/applications/{application}/energy", {"cluster": cluster}
    if application is None and (cluster is None) != (node is None):
        return (f"/api/v1/clusters/{cluster}/energy", {}) if cluster else (f"/api/v1/nodes/{node}/energy", {})
    raise ClientError("give exactly one of APP, --cluster NAME or --node ID (with APP, --cluster narrows the "
                      "application to one cluster)", exit_code=2)


def _csv(answer: dict) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for point in answer["points"]:
        writer.writerow(["+".join(point[c]) if c == "sources" else ("" if point[c] is None else point[c])
                         for c in CSV_COLUMNS])


def _table(answer: dict) -> None:
    scope = answer["scope"]
    where = f" in cluster {scope['cluster']}" if scope["kind"] != "cluster" and scope["cluster"] else ""
    console.print(f"energy of {scope['kind']} {scope['name']}{where}, {answer['from']} to {answer['to']}, "
                  f"{answer['step_s']} s steps (rollups every {answer['rollup_step_s']} s, kept "
                  f"{answer['retention_days']} days; empty: no rollup)")
    rows = [{heading: point[field] for field, heading in TABLE_COLUMNS.items()} for point in answer["points"]]
    emit(rows, Output.table, list(TABLE_COLUMNS.values()))
    totals = answer["totals"]
    if totals["joules"] is None:
        console.print("total: no energy recorded in this window")
        return
    per_request = "no requests" if totals["joules_per_request"] is None else f"{totals['joules_per_request']:.6g} J/req"
    console.print(f"total: {totals['joules']:.6g} J, {totals['requests']} requests, {per_request} "
                  f"(sources: {', '.join(totals['sources'])})")


def show_energy(application: str | None, cluster: str | None, node: str | None, since: str, until: str | None,
                step: int | None, output: EnergyOutput) -> None:
    path, params = _path(application, cluster, node)
    now = datetime.now(timezone.utc)
    start = parse_instant(since, "--since", now)
    end = None if until is None else parse_instant(until, "--until", now)
    params.update({"from": start.isoformat(), "to": end and end.isoformat(), "step": step})
    answer = Api().get(path, **params)
    if output == EnergyOutput.json:
        emit(answer, Output.json)
    elif output == EnergyOutput.csv:
        _csv(answer)
    else:
        _table(answer)


def register(app: typer.Typer) -> None:
    @app.command()
    def energy(application: str = typer.Argument(None, metavar="APP",
                                                 help="An application: its instances' energy"),
               cluster: str = typer.Option(None, "--cluster", help="A cluster's energy (its nodes'); with APP, "
                                                                    "only the application's instances in it"),
               node: str = typer.Option(None, "--node", help="A node's energy (its id)"),
               since: str = typer.Option("1h", "--since", help="Start: 10m, 1h, 2d ago, or an ISO 8601 time"),
               until: str = typer.Option(None, "--until", help="End, as --since (default: now)"),
               step: int = typer.Option(None, "--step", help="Seconds per point, a multiple of 10 (default: "
                                                             "the finest giving at most 500 points)"),
               output: EnergyOutput = typer.Option(EnergyOutput.table, "--output")) -> None:
        """Energy history per step: joules, requests, watts (mean and peak), J/request and the power source,
        from the controller's 10 s rollups. Exits 1 when the API refuses the query (naming the field), 2 on
        a wrong use of the options."""
        show_energy(application, cluster, node, since, until, step, output)
