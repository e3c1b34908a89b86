"""The energy history's writer (services.energy_rollup_writes): a step written in pieces is stored as their sum,
the highest watts kept, the source `mixed` once two pieces differ, labels kept once known; an instance that is not
one of ours is folded into its node's unattributed energy; odd label text survives the COPY."""

import uuid

from sqlalchemy import select

from e3.core.db import session_scope
from e3.energy.ledger import EnergyRow
from e3.models import energy_rollups
from e3.services.energy_labels import InstanceLabels
from e3.services.energy_rollup_writes import StoredRow, add_rows

START = 1_795_000_000.0
CLUSTER = str(uuid.uuid4())


def _row(node: str, instance: str | None, joules: float, *, watts: float = 10.0, source: str = "model",
         requests: int = 5) -> EnergyRow:
    return EnergyRow(start=START, step_s=10, cluster_id=CLUSTER, node_id=node, instance_id=instance, joules=joules,
                     idle_joules=joules / 2, unattributed_joules=joules / 4 if instance is None else 0.0,
                     requests=requests, seconds=1.0, heartbeats=20, watts_max=watts, source=source)



def _stored(node: uuid.UUID) -> dict:
    with session_scope() as session:
        rows = session.execute(select(energy_rollups).where(energy_rollups.c.node_id == node)).mappings().all()
    return {(str(r["instance_id"]) if r["instance_id"] else None): dict(r) for r in rows}


def test_pieces_of_a_step_add_up_and_labels_and_odd_text_survive(backing_services):
    node, instance = str(uuid.uuid4()), str(uuid.uuid4())
    labels = InstanceLabels(str(uuid.uuid4()), "shop\tfront\\n", "kv", 1.0, True)
    with session_scope() as session:
        add_rows(session, [StoredRow(_row(node, None, 8.0), None), StoredRow(_row(node, instance, 6.0), None),
                           StoredRow(_row(node, "not-one-of-ours", 1.5), None)])
    with session_scope() as session:  # a late piece of the same step: another source, higher watts, the labels
        add_rows(session, [StoredRow(_row(node, None, 2.0, watts=30.0, source="rapl"), None),
                           StoredRow(_row(node, instance, 1.0, requests=7), labels)])
    stored = _stored(uuid.UUID(node))
    assert set(stored) == {None, instance}
    own = stored[None]
    assert own["joules"] == 10.0 and own["idle_joules"] == 5.0 and own["heartbeats"] == 40
    assert own["unattributed_joules"] == 8.0 / 4 + 1.5 + 2.0 / 4  # the stranger's 1.5 J folded in
    assert own["watts_max"] == 30.0 and own["source"] == "mixed"
    mine = stored[instance]
    assert mine["joules"] == 7.0 and mine["requests"] == 12 and mine["source"] == "model"
    assert (mine["application"], mine["dag_node"], str(mine["deployment_id"]), mine["counts_requests"]) == \
        ("shop\tfront\\n", "kv", labels.deployment_id, True)


def test_nothing_to_write_writes_nothing(backing_services):
    node = str(uuid.uuid4())
    with session_scope() as session:
        add_rows(session, [StoredRow(_row(node, "stranger", 1.0), None)])  # no node row to fold it into
    assert _stored(uuid.UUID(node)) == {}
