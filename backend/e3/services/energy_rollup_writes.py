"""Writing the energy history: rows of `energy_rollups` added to what is stored (controller.energy_rollups).

A row whose step is already stored (a heartbeat that came after its step closed) is added to it: joules,
requests, seconds and heartbeats summed, the highest watts kept, the source `mixed` when they differ.
So the stored rows always hold the sum of the heartbeats counted in them, however late those came.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy.orm import Session

from e3.energy.ledger import MIXED, EnergyRow
from e3.services.copy_merge import NULL, copy_text, merge_sql, stage
from e3.services.energy_labels import InstanceLabels

COLUMNS = ("ts", "step_s", "cluster_id", "node_id", "instance_id", "deployment_id", "application", "dag_node",
           "joules", "idle_joules", "unattributed_joules", "requests", "counts_requests", "seconds", "heartbeats",
           "watts_max", "source")
_MERGE = merge_sql(
    "energy_rollups", COLUMNS, ("ts", "node_id", "instance_id"),
    ("joules", "idle_joules", "unattributed_joules", "requests", "seconds", "heartbeats"), ("watts_max",), (
        f"source = CASE WHEN energy_rollups.source = EXCLUDED.source THEN energy_rollups.source ELSE '{MIXED}' END",
        *(f"{c} = COALESCE(energy_rollups.{c}, EXCLUDED.{c})" for c in ("application", "dag_node", "deployment_id")),
        "counts_requests = energy_rollups.counts_requests OR EXCLUDED.counts_requests"))


@dataclass(frozen=True)
class StoredRow:
    row: EnergyRow
    labels: InstanceLabels | None  # an instance's, when known


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _kept(rows: list[StoredRow]) -> tuple[list[StoredRow], dict[tuple, float]]:
    """The rows to store, and per node row (step start, node id) the joules to add to its unattributed energy:
    an instance whose id is not a UUID (no instance of ours) is folded into its node's row, so nothing is lost."""
    kept: list[StoredRow] = []
    node_rows: set[tuple] = set()
    folded: dict[tuple, float] = {}
    for stored in rows:
        row = stored.row
        key = (row.start, row.node_id)
        if row.instance_id is None:
            node_rows.add(key)
        elif not _is_uuid(row.instance_id):
            if key in node_rows:
                folded[key] = folded.get(key, 0.0) + row.joules
            continue
        kept.append(stored)
    return kept, folded


def _line(stored: StoredRow, folded: float) -> str:
    row, labels = stored.row, stored.labels
    ts = datetime.fromtimestamp(row.start, timezone.utc).isoformat()
    label = (labels.deployment_id, copy_text(labels.application), copy_text(labels.dag_node),
             "t" if labels.counts_requests else "f") if labels else (NULL, NULL, NULL, "f")
    return (f"{ts}\t{row.step_s}\t{row.cluster_id}\t{row.node_id}\t{copy_text(row.instance_id)}\t"
            f"{label[0]}\t{label[1]}\t{label[2]}\t{row.joules!r}\t{row.idle_joules!r}\t"
            f"{(row.unattributed_joules + folded)!r}\t{row.requests}\t{label[3]}\t"
            f"{row.seconds!r}\t{row.heartbeats}\t{row.watts_max!r}\t{row.source}\n")


def add_rows(session: Session, rows: list[StoredRow]) -> None:
    """Add the rows to the history (upserts by step, node and instance, in the caller's transaction): COPY into a
    temporary table, then one INSERT ... ON CONFLICT (services.copy_merge)."""
    kept, folded = _kept(rows)
    if not kept:
        return
    cursor = session.connection().connection.cursor()  # the psycopg 3 cursor under SQLAlchemy
    stage(cursor, "energy_rollups", COLUMNS,
          (_line(s, folded.get((s.row.start, s.row.node_id), 0.0) if s.row.instance_id is None else 0.0)
           for s in kept))
    cursor.execute(_MERGE)
