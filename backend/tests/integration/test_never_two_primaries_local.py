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


@_agent_env("drop")
def test_issue19_item9_a_move_whose_ok_is_dropped_leaves_one_primary_and_loses_no_write(client, trio,
                                                                                        backing_services):
    placed = trio["placed"]
    kv, target = placed["kv"], third_host(client, placed)
    gw = _keep_gateway_off(client, trio, placed, target)
    writer = _start_writer(gw)
    migration_id = _move(client, kv, target)
    m = _ended(client, migration_id)
    acked = _stop_writer(writer)

    assert m["state"] == "succeeded", m  # the importer serves: the confirmation says so, the move stands
    steps = {s["name"]: s["state"] for s in m["steps"]}
    assert steps["confirm_transfer"] == "done" and "resume_source" not in steps, m["steps"]
    moved = _target_copy(migration_id)
    assert [_accepts_a_write(kv, "source"), _accepts_a_write(moved, "target")] == [False, True]
    _none_lost(gw, acked)


@_agent_env(f"delay:{DELAY_MS}")
def test_issue19_item9_a_move_whose_ok_comes_too_late_leaves_one_primary_and_loses_no_write(client, trio,
                                                                                           backing_services):
    placed = trio["placed"]
    kv, target = placed["kv"], third_host(client, placed)
    gw = _keep_gateway_off(client, trio, placed, target)
    writer = _start_writer(gw)
    migration_id = _move(client, kv, target)
    _transferring(client, migration_id)
    moved = _target_copy(migration_id)
    # the importer serves, the exporter still waits for its OK: it does not serve meanwhile
    assert [_accepts_a_write(kv, "source-early"), _accepts_a_write(moved, "target-early")] == [False, True]
    m = _ended(client, migration_id)
    acked = _stop_writer(writer)

    assert m["state"] == "succeeded", m
    assert {s["name"]: s["state"] for s in m["steps"]}["confirm_transfer"] == "done", m["steps"]
    assert [_accepts_a_write(kv, "source"), _accepts_a_write(moved, "target")] == [False, True]
    _none_lost(gw, acked)


@_agent_env(f"delay:{DELAY_MS}")
def test_issue19_item9_kill_9_of_the_importer_mid_move_leaves_one_primary_and_loses_no_write(client, trio,
                                                                                            backing_services):
    placed = trio["placed"]
    kv, target = placed["kv"], third_host(client, placed)
    gw = _keep_gateway_off(client, trio, placed, target)
    writer = _start_writer(gw)
    migration_id = _move(client, kv, target)
    _transferring(client, migration_id)
    moved = _target_copy(migration_id)
    importer = next(a for a in trio["agents"] if a["node"] == target)
    os.kill(importer["pid"], signal.SIGKILL)
    m = _ended(client, migration_id)
    acked = _stop_writer(writer)

    assert m["state"] == "rolled_back", m  # the target is gone: the source was told to serve again
    steps = {s["name"]: s["state"] for s in m["steps"]}
    assert steps["resume_source"] == "done", m["steps"]
    assert [_accepts_a_write(kv, "source"), _accepts_a_write(moved, "target")] == [True, False]
    assert running(client, trio["deployment_id"])["kv"]["node"] == kv["node"]
    _none_lost(gw, acked)


@_agent_env(f"delay:{DELAY_MS}")
def test_issue19_item9_kill_9_of_the_exporter_mid_move_leaves_one_primary_and_loses_no_write(client, trio,
                                                                                            backing_services):
    placed = trio["placed"]
    kv, backup, target = placed["kv"], placed["kv-backup"], third_host(client, placed)
    gw = _keep_gateway_off(client, trio, placed, kv["node"])
    writer = _start_writer(gw)
    migration_id = _move(client, kv, target)
    _transferring(client, migration_id)
    moved = _target_copy(migration_id)
    exporter = next(a for a in trio["agents"] if a["node"] == kv["node"])
    os.kill(exporter["pid"], signal.SIGKILL)
    m = _ended(client, migration_id)
    # failover: the backup is promoted; the move's target copy (which imported the state) is removed
    wait_until(lambda: not _accepts_a_write(moved, "target-wait"), timeout=30, what="the target copy removed")
    after = wait_until(lambda: (r := running(client, trio["deployment_id"])) and r["kv"]["id"] == backup["id"] and r,
                       timeout=30, what="the backup promoted and a new backup seeded")
    acked = _stop_writer(writer)

    assert m["state"] == "failed", m
    copies = {"source": kv, "promoted": after["kv"]}
    fresh = after["kv-backup"]  # seeded on the target node, it may have been given the removed copy's port
    if (fresh["address"], fresh["port"]) != (moved["address"], moved["port"]):
        copies["target"] = moved
    assert {name: _accepts_a_write(where, name) for name, where in copies.items()} == {
        name: name == "promoted" for name in copies}
    _none_lost(gw, acked)
