"""`e3 migrate INSTANCE --to NODE`: move an instance (or predict the move), follow its steps; `e3 events`."""

import time

import typer

from e3.client.api import Api, ClientError
from e3.client.migrations import wait_for_migration
from e3.cli.output import Output, console, emit


def _prediction_rows(answer: dict) -> list[dict]:
    p = answer["prediction"]
    return [dict(figure=k, before=p["before"][k], after=p["after"][k], change=p["change"][k]) for k in p["before"]]


def _print_step(step: dict) -> None:
    console.print(f"  {step['name']:<18} {step['state']:<7} {step['ms'] or 0:>9.1f} ms"
                  + (f"  {step['detail']}" if step.get("detail") else ""))


def migrate_instance(instance: str, to: str, dry_run: bool, wait: bool, timeout_s: float, output: Output) -> None:
    api = Api()
    answer = api.post(f"/api/v1/instances/{instance}/migrations", json={"target_node": to, "dry_run": dry_run}).json()
    if dry_run:
        if output == Output.json:
            emit(answer, output)
        else:
            emit(_prediction_rows(answer), output, ["figure", "before", "after", "change"],
                 title=f"{answer['service']} {answer['source_node']} -> {answer['target_node']}: predicted by the "
                       f"cost model at {answer['prediction']['offered_rps'] or 0:.0f} req/s (source: model)")
        return
    if not wait:
        emit(answer, output)
        return
    if output == Output.table:
        console.print(f"migrating {answer['service']} {instance} {answer['source_node']} -> {answer['target_node']}")
    m = wait_for_migration(api, str(answer["migration_id"]), timeout_s,
                           on_step=_print_step if output == Output.table else None)
    if output == Output.json:
        emit(m, output)
    else:
        total = sum(s["ms"] or 0 for s in m["steps"])
        console.print(f"migration {m['id']} {m['state']} in {total:.1f} ms of steps")
    if m["state"] != "succeeded":
        raise ClientError(f"migration {m['id']} {m['state']}: {(m['error'] or {}).get('message', 'no reason given')}")


def register(app: typer.Typer) -> None:
    @app.command()
    def events(since: int = typer.Option(0, min=0, help="Only events after this id"),
               kind: str = typer.Option(None, help="A kind (node.down) or a prefix ending in '.' (migration.)"),
               cluster: str = typer.Option(None), limit: int = typer.Option(100, min=1, max=1000),
               follow: bool = typer.Option(False, "--follow", help="Keep printing new events until Ctrl-C"),
               output: Output = typer.Option(Output.table, "--output")) -> None:
        """Print the event log: node state changes, detections, migrations and their steps, command NACKs."""
        api = Api()
        while True:
            page = api.get("/api/v1/events", since=since, limit=limit,
                           **{k: v for k, v in dict(kind=kind, cluster=cluster).items() if v})
            if page["items"] or not follow:
                emit(page["items"], output, ["id", "ts", "kind", "subject", "data"])
            since = page["next_since"]
            if not follow:
                return
            time.sleep(0.5)
