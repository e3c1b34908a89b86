"""Never two primaries (issue 19, item 9), the controller's side against a real database: the migration runner's
confirmation step driven by scripted agent answers (the agents themselves in
tests/integration/test_never_two_primaries_local.py), and the epochs it and failover hand out."""

import threading
import uuid
from types import SimpleNamespace

import pytest
from helpers import deploy_on_new_cluster
from sqlalchemy import select

from e3.core.db import session_scope
from e3.core.security import SYSTEM
from e3.models import ComputeNode, Instance, Migration, NodeCommand
from e3.services.migration import runner
from e3.services.migration.failover import fail_over
from e3.services.migration.records import request_migration

APP = {
    "apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "n2p"},
    "spec": {"nodes": [{"id": "kv", "service": "kvs", "replicas": 1, "constraints": {"platform": "host"}}],
             "edges": []},
}


@pytest.fixture
def move(client, worker):
    """The kvs primary running (epoch 1) with its backup on agent-run nodes that are up, and its move to a host
    on the third server recorded."""
    deploy_on_new_cluster(client, "n2p", APP)
    with session_scope() as session:
        nodes = list(session.scalars(select(ComputeNode).order_by(ComputeNode.name)))
        for k, n in enumerate(nodes):
            n.agent_id, n.address, n.control_address = f"agent-{k}", f"10.0.0.{k + 1}", f"10.0.0.{k + 1}"
        by = {i.replica: i for i in session.scalars(select(Instance))}
        for port, inst in enumerate(by.values(), start=21000):
            inst.state, inst.port = "running", port
        servers = {session.get(ComputeNode, i.node_id).server_id for i in by.values()}
        target = next(n for n in nodes if n.server_id not in servers and n.kind == "host")
        primary = by[0]
    with session_scope() as session:
        _, migration = request_migration(session, primary.id, target.name, dry_run=False, actor=SYSTEM)
        return SimpleNamespace(id=migration.id, instance=primary.id, source=primary.node_id, target=target.id,
                               backup=by[1].id)


class ScriptedAgents(threading.Thread):
    """Answers every command as an agent would, except: ExportState is NACKed `transfer_unconfirmed` (the
    importer's answer lost); ConfirmImport gets `confirm` ("ack", "not_imported", or None: never answered)."""

    def __init__(self, confirm: str | None):
        super().__init__(daemon=True)
        self.confirm, self.stop = confirm, threading.Event()

    def run(self):
        while not self.stop.wait(0.01):
            with session_scope() as session:
                for c in session.scalars(select(NodeCommand).where(NodeCommand.state == "pending")):
                    if c.kind == "export_state" and not c.payload.get("keep_serving"):
                        c.state, c.error = "nacked", dict(code="transfer_unconfirmed", message="answer lost")
                    elif c.kind == "confirm_import" and self.confirm == "not_imported":
                        c.state, c.error = "nacked", dict(code="not_imported", message="awaiting state")
                    elif c.kind != "confirm_import" or self.confirm == "ack":
                        c.state = "acked"


def _run(migration_id: uuid.UUID, confirm: str | None) -> tuple[Migration, dict]:
    agents = ScriptedAgents(confirm)
    agents.start()
    try:
        with session_scope() as session:
            runner.run_migration(session, migration_id)
    finally:
        agents.stop.set()
        agents.join()
    with session_scope() as session:
        m = session.get(Migration, migration_id)
        session.expunge(m)
        issued = {}
        for c in session.scalars(select(NodeCommand).order_by(NodeCommand.node_id, NodeCommand.version)):
            issued.setdefault(c.kind, []).append((c.node_id, c.payload))
        return m, issued


def _steps(m: Migration) -> dict[str, str]:
    return {s["name"]: s["state"] for s in m.steps}


def test_issue19_item9_a_lost_answer_confirmed_by_the_target_completes_the_move_at_the_next_epoch(move):
    m, issued = _run(move.id, "ack")
    assert m.state == "succeeded", m.error
    assert _steps(m) == dict(push="done", open_transfer="done", stop_and_transfer="done", confirm_transfer="done",
                             update_routes="done", cleanup_source="done")
    with session_scope() as session:
        inst = session.get(Instance, move.instance)
        assert (inst.node_id, inst.epoch) == (move.target, 2)
    # the target copy deploys and imports at epoch 2; the source exported at 1 and is removed, never resumed
    assert [(n, p["epoch"]) for n, p in issued["deploy_instance"] if p["instance_id"] == str(move.instance)][-1] \
        == (move.target, 2)
    assert [(n, p["epoch"]) for n, p in issued["import_state"]] == [(move.target, 2)]
    assert [(n, p["epoch"]) for n, p in issued["export_state"]] == [(move.source, 1)]
    assert [(n, p["epoch"]) for n, p in issued["confirm_import"]] == [(move.target, 2)]
    assert "resume_instance" not in issued
    assert (move.source, {"instance_id": str(move.instance)}) in issued["remove_instance"]


def test_issue19_item9_a_lost_answer_the_target_did_not_import_resumes_the_source_and_rolls_back(move):
    m, issued = _run(move.id, "not_imported")
    assert (m.state, m.error["code"]) == ("rolled_back", "transfer_failed")
    assert _steps(m) == dict(push="done", open_transfer="done", stop_and_transfer="failed", confirm_transfer="done",
                             resume_source="done", undo_push="done")
    with session_scope() as session:
        inst = session.get(Instance, move.instance)
        assert (inst.node_id, inst.epoch) == (move.source, 1)
    assert issued["resume_instance"] == [(move.source, {"instance_id": str(move.instance), "epoch": 1})]
    assert (move.target, {"instance_id": str(move.instance)}) in issued["remove_instance"]


def test_issue19_item9_a_target_that_never_confirms_leaves_the_source_fenced_not_resumed(move, monkeypatch):
    monkeypatch.setattr(runner, "STEP_TIMEOUT_S", 1.0)
    m, issued = _run(move.id, None)
    assert (m.state, m.error["code"]) == ("failed", "unconfirmed")
    assert "resume_instance" not in issued  # no copy serves rather than two
    with session_scope() as session:
        assert session.get(Instance, move.instance).node_id == move.source


def test_issue19_item9_a_source_lost_mid_move_leaves_the_promoted_backup_alone_at_a_higher_epoch(move):
    with session_scope() as session:
        session.get(Instance, move.instance).epoch = 3
        assert runner.begin(session, move.id)  # the target copy is deployed and listens for the state
    with session_scope() as session:
        session.get(ComputeNode, move.source).state = "down"
    with session_scope() as session:
        fail_over(session, move.source)
    with session_scope() as session:
        promoted = session.get(Instance, move.backup)
        assert (promoted.role, promoted.epoch) == ("primary", 4)
        removals = {(c.node_id, c.payload["instance_id"]) for c in session.scalars(
            select(NodeCommand).where(NodeCommand.kind == "remove_instance"))}
    assert (move.target, str(move.instance)) in removals  # the move's target copy goes too
