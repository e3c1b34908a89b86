"""Failover between real agents (`e3 cluster up --mode local`, 3 beefy servers) with the real controller, API,
worker, Postgres and Redis: the agent running a kvs primary is killed with SIGKILL; its backup serves the
primary's keys through the gateway (under the old primary's id), a new backup is seeded on the third server,
and it follows the promoted primary's updates."""

import os
import signal
import time

from helpers import wait_until
from local_trio import KEY, ask, running

from e3.dataplane import udp


def _through_gateway(gw: dict, key: str) -> str | None:
    try:
        ok, body = ask(gw, f"{KEY} client-1\nGET {key}", timeout_s=0.2)
    except udp.RequestFailed:
        return None
    return body if ok else None


def test_a_killed_primarys_backup_serves_and_a_new_backup_is_seeded(client, trio):
    placed = trio["placed"]
    kv, backup, gw = placed["kv"], placed["kv-backup"], placed["gw"]
    if gw["node"] == kv["node"]:  # keep the gateway out of the failure: the kvs is what fails over
        r = client.post(f"/api/v1/instances/{gw['id']}/migrations",
                        json={"target_node": backup["node"]})
        assert r.status_code == 202, r.json()
        gw = wait_until(lambda: (g := running(client, trio["deployment_id"])) and g["gw"]["node"] == backup["node"]
                        and g["gw"], timeout=30, what="the gateway moved off the kvs primary's node")
    for i in range(300):
        assert ask(kv, f"PUT pre{i} {i}") == (True, "OK")
    wait_until(lambda: ask(backup, "GET pre299") == (True, "VALUE 299"), what="the backup caught up")

    victim = next(a for a in trio["agents"] if a["node"] == kv["node"])
    killed = time.monotonic()
    os.kill(victim["pid"], signal.SIGKILL)
    wait_until(lambda: _through_gateway(gw, "pre7") == "ALLOW\nVALUE 7", timeout=10,
               what="the primary's keys served again through the gateway")
    serving_s = time.monotonic() - killed
    print(f"kill -9 of the primary's agent -> served by its backup through the gateway: {serving_s:.2f} s")

    nodes = {n["name"]: n for n in client.get("/api/v1/clusters/trio/nodes").json()["items"]}
    assert nodes[kv["node"]]["state"] == "down"
    after = wait_until(lambda: running(client, trio["deployment_id"]), timeout=30, what="a new backup running")
    promoted, fresh = after["kv"], after["kv-backup"]
    assert promoted["id"] == backup["id"] and promoted["node"] == backup["node"]
    assert fresh["id"] not in (kv["id"], backup["id"]) and fresh["server"] not in (kv["server"], backup["server"])

    def seeded():
        items = client.get("/api/v1/migrations", params={"instance_id": fresh["id"]}).json()["items"]
        return items if items and items[0]["state"] not in ("pending", "running") else None

    seeds = wait_until(seeded, timeout=30, what="the seed migration ended")
    assert [(m["kind"], m["state"], m["reason"]) for m in seeds] == [("seed", "succeeded", "failover")]
    for i in range(0, 300, 13):  # the copy: everything the promoted primary held
        assert ask(fresh, f"GET pre{i}") == (True, f"VALUE {i}"), i
    assert _through_gateway(gw, "pre1") == "ALLOW\nVALUE 1"
    assert ask(gw, f"{KEY} client-1\nPUT after-failover yes") == (True, "ALLOW\nOK")
    wait_until(lambda: ask(fresh, "GET after-failover") == (True, "VALUE yes"),
               what="the new backup follows the promoted primary")
    print("seed steps (ms):", {s["name"]: s["ms"] for s in seeds[0]["steps"]})
    kinds = [e["kind"] for e in client.get("/api/v1/events", params={"kind": "failover.", "limit": 50}).json()["items"]]
    assert kinds[0] == "failover.started" and "failover.promoted" in kinds and "failover.backup_placed" in kinds
