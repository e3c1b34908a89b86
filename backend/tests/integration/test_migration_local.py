"""Cold migration between real agents (`e3 cluster up --mode local`, 3 beefy servers) with the real
controller, API, worker, Postgres and Redis: a kvs primary moves under load with its state, no
acknowledged update lost, its backup still following; and a migration whose runner is killed with
SIGKILL mid-way is finished by a worker started afterwards."""

import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
from helpers import REPO_ROOT, start_process, stop_process, wait_until
from local_trio import KEY, Writer, ask, running, third_host

from e3.dataplane import udp


def test_a_kvs_primary_migrates_under_load_without_losing_an_acknowledged_update(client, e3, trio):
    placed = trio["placed"]
    kv, gw = placed["kv"], placed["gw"]
    preload = 2000
    for i in range(preload):
        assert ask(kv, f"PUT pre{i} {i}") == (True, "OK")
    target = third_host(client, placed)

    writer = Writer(gw)
    writer.start()
    wait_until(lambda: len(writer.acked) >= 50, timeout=10, what="updates acknowledged before the migration")
    done = e3("migrate", kv["id"], "--to", target, "--wait", "--output", "json")
    before_stop = len(writer.acked)
    wait_until(lambda: len(writer.acked) >= before_stop + 50, timeout=10, what="updates acknowledged after it")
    writer.stop.set()
    writer.join()

    m = json.loads(done.stdout)
    assert m["state"] == "succeeded", m
    assert [s["name"] for s in m["steps"]] == ["push", "open_transfer", "stop_and_transfer", "update_routes",
                                               "cleanup_source"]
    assert all(s["state"] == "done" and s["ms"] is not None for s in m["steps"])
    print("migration steps (ms):", {s["name"]: s["ms"] for s in m["steps"]}, f"acked {len(writer.acked)},",
          f"unanswered {writer.failed}")  # the record in the test log (-s)
    moved = running(client, trio["deployment_id"])["kv"]
    assert (moved["id"], moved["node"]) == (kv["id"], target) and moved["port"]
    # every acknowledged update is there, on the new node, through the gateway and directly
    for i in writer.acked:
        assert ask(gw, f"{KEY} client-2\nGET k{i}") == (True, f"ALLOW\nVALUE v{i}"), i
    for i in range(0, preload, 97):
        assert ask(moved, f"GET pre{i}") == (True, f"VALUE {i}")
    with pytest.raises(udp.RequestFailed):  # the source copy is gone
        ask(kv, "GET pre0", timeout_s=0.5)
    # the backup follows the new primary (the replication sequence carried over)
    assert ask(moved, "PUT after-move yes") == (True, "OK")
    wait_until(lambda: ask(placed["kv-backup"], "GET after-move") == (True, "VALUE yes"),
               what="the backup has an update made after the move")
    events = client.get("/api/v1/events", params={"kind": "migration.", "limit": 100}).json()["items"]
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "migration.requested" and kinds[-1] == "migration.succeeded"
    assert kinds.count("migration.step") == 10  # each of the 5 steps: running, then done
    listed = json.loads(e3("get", "migrations", "--output", "json").stdout)
    assert [x["id"] for x in listed] == [m["id"]]


def test_a_migration_whose_runner_is_killed_is_finished_by_the_next_worker(client, e3, trio, backing_services):
    from e3.core.db import session_scope
    from e3.core.security import SYSTEM
    from e3.models import Migration
    from e3.services.migration.records import request_migration

    placed = trio["placed"]
    kv = placed["kv"]
    for i in range(500):
        assert ask(kv, f"PUT pre{i} {i}") == (True, "OK")
    target = third_host(client, placed)
    with session_scope() as session:  # recorded, not queued: this test runs it itself
        _, migration = request_migration(session, uuid.UUID(kv["id"]), target, dry_run=False, actor=SYSTEM)
        migration_id = migration.id
    env = {**os.environ, "DATABASE_URL": backing_services["database_url"], "REDIS_URL": backing_services["redis_url"]}
    runner = subprocess.Popen([sys.executable, "-c", "import sys; from e3.tasks.migrations import migrate; "
                               "migrate(sys.argv[1])", str(migration_id)], env=env, cwd=REPO_ROOT / "backend")

    deadline, killed_at = time.monotonic() + 20, None
    while killed_at is None:  # each step waits for an agent's answer (ms): poll faster than that
        assert time.monotonic() < deadline and runner.poll() is None, "the runner never got mid-way"
        with session_scope() as session:
            m = session.get(Migration, migration_id)
            if m.state == "running" and m.step in ("open_transfer", "stop_and_transfer", "update_routes"):
                killed_at = m.step
        time.sleep(0.002)
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    with session_scope() as session:
        assert session.get(Migration, migration_id).state == "running"  # left half-way

    second = start_process(["worker", "--concurrency", "1"], backing_services, "worker2.log",
                           lambda log: b"ready." in log)
    try:
        def ended():
            m = client.get(f"/api/v1/migrations/{migration_id}").json()
            return m if m["state"] in ("succeeded", "rolled_back", "failed") else None

        m = wait_until(ended, timeout=60, what=f"the migration resumed after a kill at {killed_at}")
    finally:
        stop_process(second)
    assert m["state"] in ("succeeded", "rolled_back"), m
    now = running(client, trio["deployment_id"])["kv"]
    assert now["node"] == (target if m["state"] == "succeeded" else kv["node"])
    for i in range(0, 500, 7):  # never lost: on whichever node it ended, the state is whole
        assert ask(now, f"GET pre{i}") == (True, f"VALUE {i}"), (m["state"], i)


def test_a_migration_whose_transfer_cannot_start_is_rolled_back_and_the_source_keeps_serving(client, e3, trio):
    """The target cannot listen on the transfer port (taken): ImportState is NACKed, the ExportState sends
    nothing to whatever listens there, the target copy is removed, the migration ends rolled_back with the
    agent's reason, and the instance serves where it was."""
    import socket

    from e3.services.migration.records import TRANSFER_PORTS

    placed = trio["placed"]
    kv = placed["kv"]
    assert ask(kv, "PUT stays here") == (True, "OK")
    squatter = socket.socket()  # the agents run on this machine: take the first transfer port
    squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAITs; a listener still excludes
    squatter.bind(("0.0.0.0", TRANSFER_PORTS.start))
    squatter.listen()
    try:
        done = e3("migrate", kv["id"], "--to", third_host(client, placed), "--wait", "--output", "json", check=False)
    finally:
        squatter.close()
    assert done.returncode == 1
    m = json.loads(done.stdout)
    assert m["state"] == "rolled_back" and m["error"]["code"] == "listen_failed", m
    # the ExportState went out with the ImportState: the source found no importer (the squatter never greets
    # as one), sent nothing and never stopped serving
    assert [(s["name"], s["state"]) for s in m["steps"]] == [("push", "done"), ("open_transfer", "failed"),
                                                             ("stop_and_transfer", "failed"), ("undo_push", "done")]
    assert "is no importer ready for this state" in m["steps"][2]["detail"], m["steps"][2]
    now = running(client, trio["deployment_id"])["kv"]
    assert (now["node"], now["port"]) == (kv["node"], kv["port"])
    assert ask(kv, "GET stays") == (True, "VALUE here")
    kinds = [e["kind"] for e in client.get("/api/v1/events", params={"kind": "migration.", "limit": 100})
             .json()["items"]]
    assert "migration.rolling_back" in kinds and kinds[-1] == "migration.rolled_back"
