"""Printing results: a table for people, JSON (--output json) for scripts."""

import json
import sys
from enum import Enum

from rich.console import Console
from rich.table import Table

# Piped output (CI logs, grep) gets wide tables rather than names wrapped at 80 columns.
console = Console(width=None if sys.stdout.isatty() else 200)
errors = Console(stderr=True, soft_wrap=True)


class Output(str, Enum):
    table = "table"
    json = "json"


def emit(data, output: Output, columns: list[str] | None = None, title: str | None = None) -> None:
    """JSON as-is; a table of `columns` for a list of dicts; key/value lines for one dict."""
    if output == Output.json:
        print(json.dumps(data, indent=2, default=str))
        return
    if isinstance(data, list):
        table = Table(title=title)
        for col in columns or (list(data[0]) if data else []):
            table.add_column(col, no_wrap=True)
        for row in data:
            table.add_row(*(_cell(row.get(c)) for c in columns or row))
        console.print(table)
    else:
        for key, value in data.items():
            console.print(f"[bold]{key}[/bold]: {_cell(value)}")


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e6 else f"{value:,.0f}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return "" if value is None else str(value)
