"""Writing the energy history: rows of `energy_rollups` added to what is stored (controller.energy_rollups).

A row whose step is already stored (a heartbeat that came after its step closed) is added to it: joules,
requests, seconds and heartbeats summed, the highest watts kept, the source `mixed` when they differ.
So the stored rows always hold the sum of the heartbeats counted in them, however late those came.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import case, func
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from e3.energy.ledger import MIXED, EnergyRow
from e3.models import energy_rollups
from e3.services.energy_labels import InstanceLabels


CHUNK_ROWS = 2_000  # rows per statement: 19 parameters each, within a statement's 65,535


@dataclass(frozen=True)
class StoredRow:
    row: EnergyRow
    labels: InstanceLabels | None  # an instance's, when known


def _uuid(text: str | None) -> uuid.UUID | None:
    if text is None:
        return None
    try:
        return uuid.UUID(text)
    except ValueError:
        return None


def _values(rows: list[StoredRow]) -> list[dict]:
    """Row dicts; an instance whose id is not a UUID (no instance of ours) is folded into its node's row as
    unattributed energy, so nothing is lost."""
    out: list[dict] = []
    node_rows: dict[tuple, dict] = {}
    for stored in rows:
        row, labels = stored.row, stored.labels
        iid = _uuid(row.instance_id)
        key = (row.start, row.node_id)
        if row.instance_id is not None and iid is None:
            if key in node_rows:
                node_rows[key]["unattributed_joules"] += row.joules
            continue
        value = dict(ts=datetime.fromtimestamp(row.start, timezone.utc), step_s=row.step_s,
                     cluster_id=uuid.UUID(row.cluster_id), node_id=uuid.UUID(row.node_id), instance_id=iid,
                     deployment_id=uuid.UUID(labels.deployment_id) if labels else None,
                     application=labels.application if labels else None, dag_node=labels.dag_node if labels else None,
                     joules=row.joules, idle_joules=row.idle_joules, unattributed_joules=row.unattributed_joules,
                     requests=row.requests, counts_requests=bool(labels and labels.counts_requests),
                     seconds=row.seconds, heartbeats=row.heartbeats, watts_max=row.watts_max, source=row.source)
        if iid is None:
            node_rows[key] = value
        out.append(value)
    return out


def add_rows(session: Session, rows: list[StoredRow]) -> None:
    """Add the rows to the history (upserts by step, node and instance, in the caller's transaction)."""
    values = _values(rows)
    for first in range(0, len(values), CHUNK_ROWS):
        _upsert(session, values[first:first + CHUNK_ROWS])


def _upsert(session: Session, values: list[dict]) -> None:
    stmt = insert(energy_rollups).values(values)
    old, new = energy_rollups.c, stmt.excluded
    session.execute(stmt.on_conflict_do_update(
        index_elements=[old.ts, old.node_id, old.instance_id],
        set_=dict(joules=old.joules + new.joules, idle_joules=old.idle_joules + new.idle_joules,
                  unattributed_joules=old.unattributed_joules + new.unattributed_joules,
                  requests=old.requests + new.requests, seconds=old.seconds + new.seconds,
                  heartbeats=old.heartbeats + new.heartbeats, watts_max=func.greatest(old.watts_max, new.watts_max),
                  source=case((old.source == new.source, old.source), else_=MIXED),
                  application=func.coalesce(old.application, new.application),
                  dag_node=func.coalesce(old.dag_node, new.dag_node),
                  deployment_id=func.coalesce(old.deployment_id, new.deployment_id),
                  counts_requests=old.counts_requests | new.counts_requests)))
