"""Adding rows to a table of sums: COPY into a temporary table shaped like it, then one INSERT ... SELECT ...
ON CONFLICT DO UPDATE that adds the sums, keeps the maxima and merges the rest as the caller says. The rows are
formatted as COPY text by the caller (a tenth of the driver's CPU, and the writers run beside the controller's
intake, holding the interpreter lock); one statement whatever the number of rows, so its plan is cached."""

from collections.abc import Iterable, Sequence

ADDED, MAXED = "{c} = {t}.{c} + EXCLUDED.{c}", "{c} = GREATEST({t}.{c}, EXCLUDED.{c})"
NULL = "\\N"


def merge_sql(table: str, columns: Sequence[str], key: Sequence[str], added: Sequence[str],
              maxed: Sequence[str], extra: Sequence[str] = ()) -> str:
    """The INSERT from `stage_<table>`: `added` columns summed, `maxed` ones the greatest, `extra` SET clauses."""
    sets = [ADDED.format(c=c, t=table) for c in added] + [MAXED.format(c=c, t=table) for c in maxed] + list(extra)
    names = ", ".join(columns)
    return (f"INSERT INTO {table} ({names}) SELECT {names} FROM stage_{table} "
            f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {', '.join(sets)}")


def stage(cursor, table: str, columns: Sequence[str], lines: Iterable[str]) -> None:
    """COPY the lines into `stage_<table>` (created once per session, emptied at each commit)."""
    cursor.execute(f"CREATE TEMP TABLE IF NOT EXISTS stage_{table} (LIKE {table}) ON COMMIT DELETE ROWS")
    with cursor.copy(f"COPY stage_{table} ({', '.join(columns)}) FROM STDIN") as copy:
        copy.write("".join(lines).encode())


def copy_text(value: str | None) -> str:
    """A text value in COPY text format: None as NULL; backslash, tab and line breaks escaped."""
    if value is None:
        return NULL
    if any(c in value for c in "\\\t\n\r"):
        value = value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return value
