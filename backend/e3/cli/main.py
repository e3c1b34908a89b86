"""The `e3` command: servers (up, api, worker, migrate) and a client of the REST API for CI pipelines."""

import sys

import typer

from e3.cli import bench, migrations, resources, servers
from e3.cli import cost, energy, plan
from e3.cli import experiment
from e3.client.api import ClientError
from e3.cli.output import errors

app = typer.Typer(help="E3 control plane: energy-efficient microservices on SmartNIC-accelerated servers.",
                  no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
servers.register(app)
resources.register(app)
bench.register(app)
migrations.register(app)
cost.register(app)
energy.register(app)
plan.register(app)
experiment.register(app)


def main() -> None:
    try:
        app(prog_name="e3", standalone_mode=False)
    except ClientError as exc:
        errors.print(exc.message, markup=False, highlight=False)
        sys.exit(exc.exit_code)
    except typer.Abort:
        errors.print("aborted")
        sys.exit(130)
    except Exception as exc:  # click usage errors arrive here in non-standalone mode
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        raise
