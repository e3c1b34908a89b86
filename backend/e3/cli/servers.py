"""Commands that run E3's own processes or touch its database: up, api, worker, controller, migrate, bootstrap-token."""

from pathlib import Path

import typer

from e3.client.api import ClientError
from e3.cli.migrations import migrate_instance
from e3.cli.output import Output, console
from e3.core.config import get_settings


def _require_database_url() -> str:
    url = get_settings().database_url
    if not url:
        raise ClientError("DATABASE_URL is not set (`e3 up` sets it for the embedded database)")
    return url


def register(app: typer.Typer) -> None:
    @app.command()
    def up() -> None:
        """Run everything locally: embedded Postgres/Redis (unless URLs are set), API, worker, controller. Ctrl-C stops all."""
        from e3.cli.up import run_up

        run_up()

    @app.command()
    def api(host: str = typer.Option(None, help="Bind address (default E3_API_HOST or 127.0.0.1)"),
            port: int = typer.Option(None, help="Port (default E3_API_PORT or 8000)"),
            workers: int = typer.Option(None, min=1, max=64, help="Processes (default E3_API_WORKERS or 1)")) -> None:
        """Serve the REST API, its docs and the UI."""
        import uvicorn

        from e3.api.metrics_directory import per_run_directory

        settings = get_settings()
        with per_run_directory():  # HTTP durations summed over every worker process at /metrics
            uvicorn.run("e3.api.main:app", host=host or settings.api_host, port=port or settings.api_port,
                        workers=workers or settings.api_workers, log_level="info", proxy_headers=False)

    @app.command()
    def worker(concurrency: int = typer.Option(2, min=1, help="Worker processes")) -> None:
        """Run a Celery worker for placement and other jobs."""
        from e3.core.celery_app import celery_app

        celery_app.worker_main(["worker", "--loglevel=INFO", f"--concurrency={concurrency}", "--without-gossip",
                                "--without-mingle", "-n", "e3-worker@%h"])

    @app.command()
    def controller(host: str = typer.Option(None, help="Bind address(es), comma-separated (default E3_CONTROLLER_HOST or 127.0.0.1)"),
                   port: int = typer.Option(None, help="Port (default E3_CONTROLLER_PORT or 50051)")) -> None:
        """Serve the gRPC controller agents register with and stream heartbeats to."""
        import asyncio
        import logging

        from e3.rpc.server import serve

        _require_database_url()
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        status = asyncio.run(serve(get_settings(), host, port))
        if status:
            raise SystemExit(status)  # not typer.Exit: the CLI runs click in non-standalone mode, which returns it

    @app.command("bootstrap-token")
    def bootstrap_token(name: str = typer.Option("admin", help="A name to recognise the token by"),
                        scope: list[str] = typer.Option(["admin"], "--scope", help="Scopes (repeat)")) -> None:
        """Create a token straight in the database (DATABASE_URL), for the first admin of a new deployment."""
        from e3.core.db import session_scope
        from e3.core.security import SYSTEM
        from e3.services.tokens import create_token

        _require_database_url()
        with session_scope() as session:
            _, secret = create_token(session, name, scope, SYSTEM)
        print(secret)

    @app.command()
    def openapi(file: Path = typer.Option(None, "--file", help="Write here instead of standard output")) -> None:
        """Print the API's OpenAPI document (the frontend's client is generated from it)."""
        import json

        from e3.api.main import app as api_app

        text = json.dumps(api_app.openapi(), indent=1, sort_keys=True) + "\n"
        if file:
            file.write_text(text)
        else:
            print(text, end="")

    @app.command()
    def migrate(instance: str = typer.Argument(None, help="An instance id: migrate it (else: the database)"),
                to: str = typer.Option(None, "--to", help="The target computing node (name or id)"),
                dry_run: bool = typer.Option(False, "--dry-run", help="Only predict the change (cost model)"),
                wait: bool = typer.Option(False, "--wait", help="Follow the steps; exit 1 unless it succeeds"),
                timeout_s: float = typer.Option(120.0, min=1, help="With --wait: give up following after this"),
                output: Output = typer.Option(Output.table, "--output")) -> None:
        """Without INSTANCE: apply database migrations (Alembic) up to the latest and seed the catalogue.
        With INSTANCE --to NODE: migrate that microservice instance (cold migration, state included)."""
        if instance is not None:
            if not to:
                raise ClientError("e3 migrate INSTANCE needs --to NODE", exit_code=2)
            migrate_instance(instance, to, dry_run, wait, timeout_s, output)
            return
        if to or dry_run or wait:
            raise ClientError("--to, --dry-run and --wait need an INSTANCE (e3 migrate INSTANCE --to NODE)", exit_code=2)
        from e3.services.bootstrap import prepare_database

        prepare_database(_require_database_url())
        console.print("database at the latest migration; catalogue seeded")
