"""Orchestrator benchmarks on the emulated rack (root): migration and failover times (the paper's Figure 7 is in
`figure7`, which shares the helpers here).

`migration`: a gateway -> kvs (one backup) preloaded with N keys; the kvs primary moved host -> host under a
light closed-loop load through the gateway (end-to-end time from the POST to `succeeded`, polled every 5 ms,
and the record's per-step ms), the stateless gateway moved NIC <-> host; then a kvs on the NICs whose
primary's e3-nic is killed (SIGKILL): time to the first preloaded key served again through the gateway, and
until the new backup's seed migration succeeded.

It runs its own `e3 up` (rack.rack_up) with E3_ORCHESTRATOR=observe so that nothing moves by itself.
Every emulated server shares this machine's cores; energy is the power model's (source: model).
"""

import json
import os
import select
import signal
import socket
import subprocess
import time
from datetime import datetime

from e3.bench.rack import NFV_CONFIG, RACK, Report, deploy, rack_up
from e3.emulation import rack_cluster
from e3.client.api import Api, ClientError
from e3.client.migrations import ENDED, wait_for_migration
from e3.dataplane import udp
from e3.emulation.binaries import loadgen_binary
from e3.emulation.rack_supervisor import load_status
from e3.schemas.dag import ApplicationSpec, DagNode

MIGRATION_TARGET_MS = 500.0  # the issue: a 100K-key kvs moved end to end
FAILOVER_TARGET_S = 1.0  # the issue: backups serving within 1 s
PAPER_MIGRATION = "steps of 10s-100s of ms (paper §5.4)"
HEARTBEAT_MS = 50
POLL_S = 0.005
GW_KEY = "bench-key"
OBSERVE_ENV = {"E3_ORCHESTRATOR": "observe"}


# --- helpers -----------------------------------------------------------------------------------------------


def kv_app(name: str, platform: str, stateless: bool = False) -> dict:
    """gw (api_gateway, no backup, anywhere) -> kv (one backup) pinned to `platform`; with `stateless`, also an
    unconnected nids (a stateless service) to move."""
    doc = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": name},
           "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "replicas": 0,
                               "config": {"keys": GW_KEY, "rate": "100000000", "burst": "100000000"}},
                              {"id": "kv", "service": "kvs", "replicas": 1, "constraints": {"platform": platform}}],
                    "edges": [{"from": "gw", "to": "kv"}]}}
    spec = ApplicationSpec.from_document(doc)
    if stateless:
        spec = spec.with_node(DagNode("nids", "nids", replicas=0, config=dict(NFV_CONFIG["nids"])))
    return spec.to_document()


def by_role(instances: list[dict]) -> dict[str, dict]:
    """`dag_node` for a primary (its first shard), `dag_node-backup` for its backup."""
    out = {}
    for i in sorted(instances, key=lambda i: (i["shard"], i["replica"])):
        out.setdefault(i["dag_node"] if i["role"] == "primary" else f"{i['dag_node']}-backup", i)
    return out


def placement(api: Api, deployment: str) -> dict[str, dict]:
    return by_role(api.all_pages(f"/api/v1/deployments/{deployment}/placement"))


def set_mode(api: Api, mode: str) -> bool:
    """Switch the orchestrator at run time (PUT /api/v1/orchestrator); False when this controller has no switch."""
    r = api.request("PUT", "/api/v1/orchestrator", missing_ok=True, json={"mode": mode})
    if r.status_code in (404, 405):
        return False
    time.sleep(1.2)  # the controller picks it up within ~1 s
    return True


def migrate(api: Api, instance_id: str, target: str, timeout_s: float = 60.0) -> dict:
    """POST a migration and poll it every 5 ms until it ends; end-to-end ms (from just before the POST to the poll
    that sees it ended), the record's step ms, and where the time went (`timeline`)."""
    since = last_event_id(api)
    posted_wall, started = time.time(), time.perf_counter()
    answer = api.post(f"/api/v1/instances/{instance_id}/migrations", json={"target_node": target}).json()
    answered_wall = time.time()
    try:
        record = wait_for_migration(api, str(answer["migration_id"]), timeout_s, interval=POLL_S)
    except ClientError:
        record = {"state": "timeout"}
    end_to_end_ms = (time.perf_counter() - started) * 1000
    seen_wall = posted_wall + end_to_end_ms / 1000
    return {"source": answer["source_node"], "target": answer["target_node"], "stateful": answer["stateful"],
            "state": record["state"], "end_to_end_ms": end_to_end_ms,
            "steps": {s["name"]: s["ms"] for s in record.get("steps", [])}, "error": record.get("error"),
            "timeline": timeline(api, record, since, posted_wall, answered_wall, seen_wall)}


def timeline(api: Api, record: dict, since: int, posted: float, answered: float, seen: float) -> dict | None:
    """Where a migration's end-to-end time went, in ms from the wall clocks (one machine): the POST (and, inside
    it, until the record was written), the hand-over to a worker until the first step started, each step split
    into its commands' answers stored (command.ack|nack events) and the runner seeing them, the gaps between
    steps, the end, and the poll that saw it."""
    steps = record.get("steps") or []
    if not steps or not record.get("finished_at"):
        return None
    acks = {}
    for e in events(api, since, "command."):
        acks[(e["subject"].removeprefix("node/"), e["data"].get("version"))] = ts(e["ts"])
    started = [e for e in events(api, since, "migration.started")
               if e["data"].get("migration_id") == str(record["id"])]
    out = {"post_ms": (answered - posted) * 1000, "record_written_ms": (ts(record["created_at"]) - posted) * 1000,
           "to_worker_ms": ((ts(started[0]["ts"]) if started else ts(steps[0]["started_at"])) - answered) * 1000,
           "to_first_step_ms": (ts(steps[0]["started_at"]) - answered) * 1000, "steps": []}
    previous = None
    for s in steps:
        begin, end = ts(s["started_at"]), ts(s["finished_at"]) if s.get("finished_at") else None
        answers = [acks.get((c["node_id"], c["version"])) for c in s.get("commands") or []]
        last_answer = max((a for a in answers if a), default=None)
        gap = None if previous is None else (begin - previous) * 1000
        out["steps"].append({"name": s["name"], "gap_before_ms": gap,
                             "answered_ms": None if last_answer is None else (last_answer - begin) * 1000,
                             "seen_ms": None if last_answer is None or end is None else (end - last_answer) * 1000,
                             "ms": s["ms"]})
        previous = end
    out["finish_ms"] = (ts(record["finished_at"]) - previous) * 1000 if previous else None
    out["poll_seen_ms"] = (seen - ts(record["finished_at"])) * 1000
    return out


def preload(address: str, port: int, keys: int, window: int = 64, timeout_s: float = 0.5) -> dict:
    """PUT k<i> <i> for i < keys, `window` requests outstanding on one socket (re-sent after `timeout_s`)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setblocking(False)
    pending: dict[int, tuple[int, float, int]] = {}  # request id -> (key, sent at, tries)
    nxt, done, failed, started = 0, 0, 0, time.perf_counter()
    try:
        while done + failed < keys:
            now = time.perf_counter()
            while nxt < keys and len(pending) < window:
                pending[nxt + 1] = (nxt, now, 1)
                sock.sendto(udp.frame(nxt + 1, f"PUT k{nxt} {nxt}".encode()), (address, port))
                nxt += 1
            if select.select([sock], [], [], 0.05)[0]:
                while True:
                    try:
                        datagram = sock.recv(65535)
                    except BlockingIOError:
                        break
                    if len(datagram) >= udp.HEADER.size:
                        rid = udp.HEADER.unpack_from(datagram)[5]
                        if pending.pop(rid, None) is not None:
                            done += 1
            for rid, (key, sent, tries) in list(pending.items()):
                if now - sent > timeout_s:
                    if tries >= 5:
                        del pending[rid]
                        failed += 1
                    else:
                        pending[rid] = (key, now, tries + 1)
                        sock.sendto(udp.frame(rid, f"PUT k{key} {key}".encode()), (address, port))
    finally:
        sock.close()
    seconds = time.perf_counter() - started
    return {"keys": keys, "stored": done, "failed": failed, "seconds": seconds, "rate": done / seconds}


def ask(instance: dict, text: str, timeout_s: float = 1.0) -> str | None:
    """The reply's text, None when it failed or nothing answered."""
    try:
        reply = udp.send(instance["address"], instance["port"], text.encode(), timeout_s=timeout_s)
    except udp.RequestFailed:
        return None
    return reply.body.decode() if reply.ok else None


def wait_for(check, timeout_s: float, what: str, period_s: float = 0.1):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(period_s)
    raise RuntimeError(f"timed out after {timeout_s:g} s waiting for {what}")


def start_load(target: dict, payload: str, seconds: float, connections: int, warmup: float = 0.5) -> subprocess.Popen:
    argv = [str(loadgen_binary()), "--target", f"{target['address']}:{target['port']}", "--mode", "closed",
            "--connections", str(connections), "--duration", f"{seconds:g}", "--warmup", f"{warmup:g}",
            "--payload", payload]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def finish_load(proc: subprocess.Popen, timeout_s: float = 120) -> dict:
    out, _ = proc.communicate(timeout=timeout_s)
    try:
        run = json.loads(out)
    except ValueError:
        return {"throughput_rps": 0.0, "avg_us": None, "p50_us": None, "p99_us": None, "errors": None,
                "timeouts": None, "exit": proc.returncode}
    return {"throughput_rps": run["throughput_rps"], "avg_us": run["latency_us"].get("avg"),
            "p50_us": run["latency_us"]["p50"], "p99_us": run["latency_us"]["p99"], "errors": run["errors"],
            "timeouts": run["timeouts"], "requests": run.get("requests", run.get("completed"))}


def events(api: Api, since: int, kind: str | None = None) -> list[dict]:
    """Every event after `since` (of `kind`, a kind or a prefix ending in '.'), oldest first."""
    items = []
    while True:
        page = api.get("/api/v1/events", since=since, limit=1000, **({"kind": kind} if kind else {}))
        items += page["items"]
        if len(page["items"]) < 1000:
            return items
        since = page["next_since"]


def last_event_id(api: Api) -> int:
    latest = events(api, 0)
    return latest[-1]["id"] if latest else 0


def ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def nodes(api: Api) -> dict[str, dict]:
    return {n["name"]: n for n in api.all_pages(f"/api/v1/clusters/{RACK}/nodes")}


# --- migration ---------------------------------------------------------------------------------------------


def _kvs_move(api: Api, keys: int, load_s: float, report: Report) -> dict:
    deployment, instances = deploy(api, kv_app("bench-mig", "host", stateless=True))
    placed = by_role(instances)
    kv, backup, gw = placed["kv"], placed["kv-backup"], placed["gw"]
    report(f"migration: preloading {keys:,} keys into the kvs primary on {kv['node']} ...")
    loaded = preload(kv["address"], kv["port"], keys)
    last = keys - 1
    wait_for(lambda: ask(backup, f"GET k{last}") == f"VALUE {last}", 60, "the backup to hold the last key")
    taken = {kv["server"], backup["server"]}
    target = next(n for n in nodes(api).values() if n["kind"] == "host" and n["server"] not in taken)["name"]
    report(f"migration: kvs {kv['node']} -> {target} under load through the gateway ...")
    proc = start_load(gw, f"{GW_KEY} c1\\nGET k1", load_s, connections=2, warmup=0)
    time.sleep(min(1.0, load_s / 3))
    move = migrate(api, kv["id"], target)
    load = finish_load(proc)
    sample = range(0, keys, max(1, keys // 100))
    found = sum(ask(gw, f"{GW_KEY} c1\nGET k{i}") == f"ALLOW\nVALUE {i}" for i in sample)
    result = {"preload": loaded, "move": move, "load": dict(load, seconds=load_s, connections=2),
              "verified": {"sampled": len(sample), "found": found}}
    # within a server, between its host and its NIC, both ways: the gateway (stateful) and nids (stateless)
    all_nodes, moves = nodes(api), []
    for dag_node in ("gw", "nids"):
        for _ in range(2):
            inst = placement(api, deployment)[dag_node]
            want = "host" if inst["node_kind"] == "smartnic" else "smartnic"
            target = next(n["name"] for n in all_nodes.values() if n["kind"] == want and n["server"] == inst["server"])
            report(f"migration: {inst['service']} {inst['node']} -> {target} ...")
            moves.append(dict(migrate(api, inst["id"], target), service=inst["service"]))
    result["nic_host"] = moves
    api.request("DELETE", f"/api/v1/deployments/{deployment}")
    return result


def _failover(api: Api, keys: int, report: Report) -> dict:
    deployment, instances = deploy(api, kv_app("bench-fo", "smartnic"))
    placed = by_role(instances)
    kv, backup, gw = placed["kv"], placed["kv-backup"], placed["gw"]
    if gw["server"] == kv["server"]:  # the gateway must survive the kill (a type1 host talks only through its NIC)
        target = next(n["name"] for n in nodes(api).values() if n["kind"] == "host" and n["server"] != kv["server"])
        migrate(api, gw["id"], target)
        gw = placement(api, deployment)["gw"]
    report(f"failover: preloading {keys:,} keys into the kvs primary on {kv['node']} ...")
    loaded = preload(kv["address"], kv["port"], keys)
    last = keys - 1
    wait_for(lambda: ask(backup, f"GET k{last}") == f"VALUE {last}", 60, "the backup to hold the last key")
    status = load_status(rack_cluster.folder(RACK))
    victim = next(p for p in status["processes"] if p["kind"] == "nic" and p["node"] == kv["node"])
    since = last_event_id(api)
    probe = f"{GW_KEY} c1\nGET k7"
    report(f"failover: SIGKILL of {victim['node']}'s e3-nic (pid {victim['pid']}) ...")
    killed_wall, killed = time.time(), time.perf_counter()
    os.kill(victim["pid"], signal.SIGKILL)
    misses = 0
    while ask(gw, probe, timeout_s=0.05) != "ALLOW\nVALUE 7":
        misses += 1
        if time.perf_counter() - killed > 30:
            raise RuntimeError("failover: the preloaded key was not served again within 30 s")
    serving_s = time.perf_counter() - killed

    def seeded():
        done = [m for m in api.all_pages("/api/v1/migrations", cluster=RACK)
                if m["kind"] == "seed" and ts(m["created_at"]) >= killed_wall - 1 and m["state"] in ENDED]
        return done or None

    seeds = wait_for(seeded, 60, "the new backup's seed migration", period_s=0.05)
    seed = seeds[0]
    fresh = placement(api, deployment)
    sample = range(0, keys, max(1, keys // 100))
    after = fresh.get("kv-backup")
    missing = [i for i in sample if after is None or ask(after, f"GET k{i}") != f"VALUE {i}"]
    # a key missing from the copy: is the promoted primary (through the gateway) missing it too?
    at_primary = {f"k{i}": ask(gw, f"{GW_KEY} c1\nGET k{i}") for i in missing[:10]}
    timeline = [{"kind": e["kind"], "after_kill_ms": (ts(e["ts"]) - killed_wall) * 1000}
                for e in events(api, since, "failover.") + events(api, since, "node.")]
    return {"preload": loaded, "victim": victim["node"], "backup": backup["node"], "gateway": gw["node"],
            "serving_s": serving_s, "failed_probes": misses,
            "seed": {"state": seed["state"], "target": seed["target_node"], "steps": {s["name"]: s["ms"]
                                                                                       for s in seed["steps"]},
                     "done_after_kill_s": ts(seed["finished_at"]) - killed_wall if seed["finished_at"] else None,
                     "copied": {"sampled": len(sample), "found": len(sample) - len(missing),
                                 "missing_at_promoted_primary": at_primary}},
            "timeline": sorted(timeline, key=lambda e: e["after_kill_ms"])}


def migration_section(keys: int, report: Report, load_seconds: float = 4.0) -> dict:
    """The `migration` section on 3 x type1-smartnic (orchestrator observing)."""
    with rack_up(3, "type1-smartnic", report, extra_env=OBSERVE_ENV) as api:
        set_mode(api, "observe")
        result = {"section": "migration", "keys": keys, "target_ms": MIGRATION_TARGET_MS,
                  "failover_target_s": FAILOVER_TARGET_S, "paper": PAPER_MIGRATION}
        result["kvs"] = _kvs_move(api, keys, load_seconds, report)
        result["failover"] = _failover(api, keys, report)
    return result
