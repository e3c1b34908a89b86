"""Never two primaries (issue 19, item 9; docs/agents.md "Never two primaries"): a kvs primary moves between real
agents (`e3 cluster up --mode local`, 3 beefy servers; real controller, API, worker, Postgres, Redis) under a
writer through the gateway, with a fault injected at each step of the move: the importer's OK dropped, the OK
delayed past the exporter's 10 s answer timeout, kill -9 of the importer's agent while its OK is delayed, kill -9
of the exporter's agent while it waits for that OK. After each, exactly one copy of the instance accepts a write
sent to its port, and every write the writer saw acknowledged is readable.

The faults come from the agents' test-only hook E3_TEST_XFER_ANSWER (agents/e3-agent/src/state_xfer.h), set for
every agent of the trio; it acts on moves only (a seeded backup's copy answers as usual)."""

import os
import signal
import time
import uuid

import pytest
from helpers import wait_until
from local_trio import KEY, Writer, ask, running, third_host

from e3.dataplane import udp

DELAY_MS = 12000  # past the exporter's SX_ANSWER_TIMEOUT_MS (10 s)


def _agent_env(fault: str):
    return pytest.mark.parametrize("agent_env", [{"E3_TEST_XFER_ANSWER": fault}], indirect=True)


@pytest.fixture
def agent_env(request) -> dict:
    return request.param


def _accepts_a_write(where: dict, tag: str) -> bool:
    try:
        return udp.send(where["address"], where["port"], f"PUT probe-{tag} 1".encode(), timeout_s=0.5).ok
    except udp.RequestFailed:
        return False


def _move(client, kv: dict, target: str) -> str:
    r = client.post(f"/api/v1/instances/{kv['id']}/migrations", json={"target_node": target})
    assert r.status_code == 202, r.json()
    return r.json()["migration_id"]


def _migration(client, migration_id: str) -> dict:
    return client.get(f"/api/v1/migrations/{migration_id}").json()


def _ended(client, migration_id: str, timeout: float = 60) -> dict:
    return wait_until(lambda: (m := _migration(client, migration_id))["state"] in ("succeeded", "rolled_back", "failed")
                      and m, timeout=timeout, what="the migration ended")


def _target_copy(migration_id: str) -> dict:
    """The move's target copy as an address and port (from the migration's row)."""
    from e3.core.db import session_scope
    from e3.models import ComputeNode, Migration

    with session_scope() as session:
        m = session.get(Migration, uuid.UUID(migration_id))
        return dict(address=session.get(ComputeNode, m.target_node_id).address, port=m.target_port)


def _transferring(client, migration_id: str) -> None:
    """Wait until the source is in its ExportState, then long enough for the (small) state to be on the target,
    whose OK is being delayed."""
    wait_until(lambda: _migration(client, migration_id)["step"] == "stop_and_transfer", timeout=30,
               what="the transfer under way")
    time.sleep(2)


def _start_writer(gw: dict) -> Writer:
    writer = Writer(gw)
    writer.start()
    wait_until(lambda: len(writer.acked) >= 30, timeout=10, what="updates acknowledged before the move")
    return writer


def _stop_writer(writer: Writer) -> list[int]:
    before = len(writer.acked)
    wait_until(lambda: len(writer.acked) >= before + 20, timeout=30, what="updates acknowledged after the fault")
    writer.stop.set()
    writer.join()
    return writer.acked


def _none_lost(gw: dict, acked: list[int]) -> None:
    lost = [i for i in acked if ask(gw, f"{KEY} client-2\nGET k{i}") != (True, f"ALLOW\nVALUE v{i}")]
    assert lost == [], f"{len(lost)} of {len(acked)} acknowledged writes lost: {lost[:20]}"


def _keep_gateway_off(client, trio, placed: dict, node: str) -> dict:
    """The gateway, moved off `node` first if it is there (the fault there is not the gateway's)."""
    gw = placed["gw"]
    if gw["node"] != node:
        return gw
    away = next(p["node"] for p in (placed["kv"], placed["kv-backup"]) if p["node"] != node)
    r = client.post(f"/api/v1/instances/{gw['id']}/migrations", json={"target_node": away})
    assert r.status_code == 202, r.json()
    return wait_until(lambda: (g := running(client, trio["deployment_id"])) and g["gw"]["node"] == away and g["gw"],
                      timeout=30, what="the gateway moved away")


class _MoveUnderLoad:
    """The trio's kvs primary moving to the third server while a writer writes through the gateway (kept off
    `gateway_off`: the fault there is not the gateway's)."""

    def __init__(self, client, trio, gateway_off: str):
        placed = trio["placed"]
        self.client, self.trio = client, trio
        self.kv, self.backup, self.target = placed["kv"], placed["kv-backup"], third_host(client, placed)
        self.gw = _keep_gateway_off(client, trio, placed, self.target if gateway_off == "target" else self.kv["node"])
        self.writer = _start_writer(self.gw)
        self.migration_id = _move(client, self.kv, self.target)

    def target_copy_serving(self) -> dict:
        """Once the state is on the target (its OK delayed), the target copy."""
        _transferring(self.client, self.migration_id)
        return _target_copy(self.migration_id)

    def kill_agent_mid_move(self, node: str) -> dict:
        """kill -9 of `node`'s agent once the state is on the target (its OK delayed); the target copy."""
        moved = self.target_copy_serving()
        os.kill(next(a for a in self.trio["agents"] if a["node"] == node)["pid"], signal.SIGKILL)
        return moved

    def end(self) -> tuple[dict, list[int]]:
        """The migration at its end, and the writes acknowledged (the writer stopped after more of them)."""
        m = _ended(self.client, self.migration_id)
        return m, _stop_writer(self.writer)

    def end_event(self) -> tuple[str, list[int]]:
        """How the migration ended, from its events (failover deletes a lost primary's row, and its migrations
        with it), and the writes acknowledged."""
        def ended():
            events = self.client.get("/api/v1/events", params={"kind": "migration.", "limit": 200}).json()["items"]
            return next((e["kind"] for e in events if e["data"].get("migration_id") == self.migration_id
                         and e["kind"] in ("migration.succeeded", "migration.rolled_back", "migration.failed")), None)

        return wait_until(ended, timeout=60, what="the migration ended"), _stop_writer(self.writer)


def _steps(m: dict) -> dict[str, str]:
    return {s["name"]: s["state"] for s in m["steps"]}


def _only_one_primary_and_nothing_lost(copies: dict[str, dict], serving: str, gw: dict, acked: list[int]) -> None:
    """Of the instance's `copies` (name: address and port), only `serving` accepts a write; every write in
    `acked` reads back through the gateway."""
    assert {name: _accepts_a_write(where, name) for name, where in copies.items()} == {
        name: name == serving for name in copies}
    _none_lost(gw, acked)


@_agent_env("drop")
def test_issue19_item9_a_move_whose_ok_is_dropped_leaves_one_primary_and_loses_no_write(client, trio,
                                                                                        backing_services):
    move = _MoveUnderLoad(client, trio, gateway_off="target")
    m, acked = move.end()

    assert m["state"] == "succeeded", m  # the importer serves: the confirmation says so, the move stands
    assert _steps(m)["confirm_transfer"] == "done" and "resume_source" not in _steps(m), m["steps"]
    copies = {"source": move.kv, "target": _target_copy(move.migration_id)}
    _only_one_primary_and_nothing_lost(copies, "target", move.gw, acked)


@_agent_env(f"delay:{DELAY_MS}")
def test_issue19_item9_a_move_whose_ok_comes_too_late_leaves_one_primary_and_loses_no_write(client, trio,
                                                                                           backing_services):
    move = _MoveUnderLoad(client, trio, gateway_off="target")
    moved = move.target_copy_serving()
    # the importer serves, the exporter still waits for its OK: it does not serve meanwhile
    assert [_accepts_a_write(move.kv, "source-early"), _accepts_a_write(moved, "target-early")] == [False, True]
    m, acked = move.end()

    assert m["state"] == "succeeded", m
    assert _steps(m)["confirm_transfer"] == "done", m["steps"]
    _only_one_primary_and_nothing_lost({"source": move.kv, "target": moved}, "target", move.gw, acked)


@_agent_env(f"delay:{DELAY_MS}")
def test_issue19_item9_kill_9_of_the_importer_mid_move_leaves_one_primary_and_loses_no_write(client, trio,
                                                                                            backing_services):
    move = _MoveUnderLoad(client, trio, gateway_off="target")
    moved = move.kill_agent_mid_move(move.target)
    m, acked = move.end()

    assert m["state"] == "rolled_back", m  # the target is gone: the source was told to serve again
    assert _steps(m)["resume_source"] == "done", m["steps"]
    assert running(client, trio["deployment_id"])["kv"]["node"] == move.kv["node"]
    _only_one_primary_and_nothing_lost({"source": move.kv, "target": moved}, "source", move.gw, acked)


@_agent_env(f"delay:{DELAY_MS}")
def test_issue19_item9_kill_9_of_the_exporter_mid_move_leaves_one_primary_and_loses_no_write(client, trio,
                                                                                            backing_services):
    move = _MoveUnderLoad(client, trio, gateway_off="source")
    moved = move.kill_agent_mid_move(move.kv["node"])
    # failover: the backup is promoted; the move's target copy (which imported the state) is removed
    wait_until(lambda: not _accepts_a_write(moved, "target-wait"), timeout=30, what="the target copy removed")
    after = wait_until(lambda: (r := running(client, trio["deployment_id"])) and r["kv"]["id"] == move.backup["id"]
                       and r, timeout=30, what="the backup promoted and a new backup seeded")
    ended, acked = move.end_event()

    assert ended == "migration.failed"
    copies = {"source": move.kv, "promoted": after["kv"]}
    fresh = after["kv-backup"]  # seeded on the target node, it may have been given the removed copy's port
    if (fresh["address"], fresh["port"]) != (moved["address"], moved["port"]):
        copies["target"] = moved
    _only_one_primary_and_nothing_lost(copies, "promoted", move.gw, acked)
