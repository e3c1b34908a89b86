"""The paper's Figure 7 on the emulated rack (root): IOT-TS with its gateway moved onto a SmartNIC by hand,
driven past the NIC's capacity; the same load before (orchestrator observing) and after the orchestrator,
switched to `migrate`, moved it. Runs its own `e3 up` (rack.rack_up) with E3_ORCHESTRATOR=observe; every
emulated server shares this machine's cores; energy is the power model's (source: model).
"""

import dataclasses
import time
from datetime import datetime

from e3.bench.orchestrator_rack import (
    HEARTBEAT_MS,
    OBSERVE_ENV,
    events,
    finish_load,
    last_event_id,
    migrate,
    nodes,
    placement,
    set_mode,
    start_load,
    ts,
)
from e3.bench.rack import Report, _cluster_watts, deploy, rack_up
from e3.client.api import Api
from e3.emulation.demo import API_KEY, demo_application
from e3.energy.joules import joules_per_request
from e3.schemas.dag import ApplicationSpec

FIG7_PAYLOAD = f"{API_KEY} thermostat-1\\nSELECT WHERE id = 1"  # the demo's readings: gateway -> sql
PAPER_FIG7 = "J/request and p99 improve once the gateway is moved from the SmartNIC to the host (paper Figure 7)"

def fig7_application() -> dict:
    """The demo's IOT-TS with one gateway shard (the one the load and the orchestrator act on)."""
    spec = dataclasses.replace(ApplicationSpec.from_document(demo_application()), name="bench-fig7")
    return spec.replace_node("api", shards=1).to_document()


def _gateway_to_nic(api: Api, deployment: str, report: Report) -> dict:
    gw = placement(api, deployment)["api"]
    if gw["node_kind"] == "smartnic":
        return {"moved": False, "node": gw["node"]}
    backup = placement(api, deployment).get("api-backup", {}).get("server")
    nics = sorted((n for n in nodes(api).values() if n["kind"] == "smartnic" and n["server"] != backup),
                  key=lambda n: n["server"] != gw["server"])  # its own server's NIC first
    for nic in nics:
        report(f"figure7: gateway {gw['node']} -> {nic['name']} (manual) ...")
        move = migrate(api, gw["id"], nic["name"])
        if move["state"] == "succeeded":
            return dict(move, moved=True, node=nic["name"])
    raise RuntimeError(f"figure7: the gateway could not be moved onto a SmartNIC: {move}")


def _queues(api: Api, node_id: str, since_wall: float) -> list[tuple[float, int]]:
    since = datetime.fromtimestamp(since_wall).astimezone().isoformat()
    items = api.get(f"/api/v1/nodes/{node_id}/telemetry", since=since, limit=5000)["items"]
    return [(ts(i["ts"]), i["queue_len"]) for i in items]


def _streak_start(queues: list[tuple[float, int]], at: float, threshold: int = 32) -> float | None:
    """When the last run of heartbeats with a queue >= threshold at or before `at` began (None: no such run)."""
    start, last = None, None
    for t, q in queues:
        if t > at + 0.001:
            break
        if q >= threshold:
            start = start or t
            last = start
        else:
            start = None
    return last


def _detection_timing(queues: list[tuple[float, int]], detection: dict | None, load_started: float) -> dict:
    """How long after the load started, and how many heartbeats after the standing queue formed, it came."""
    if detection is None:
        return {"trouble": None, "after_load_s": None, "queue_from_s": None, "heartbeats_after_queue": None}
    t = ts(detection["ts"])
    streak = _streak_start(queues, t)
    return {"trouble": detection["data"].get("trouble"), "after_load_s": round(t - load_started, 3),
            "queue_from_s": round(streak - load_started, 3) if streak else None,
            "heartbeats_after_queue": round((t - streak) * 1000 / HEARTBEAT_MS, 1) if streak else None}


def _summarise_events(evs: list[dict], origin: float) -> list[dict]:
    return [{"kind": e["kind"], "after_s": round(ts(e["ts"]) - origin, 3), "subject": e["subject"],
             "trouble": e["data"].get("trouble"), "instance_id": e["data"].get("instance_id"),
             "reason": e["data"].get("reason"), "target_node_id": e["data"].get("target_node_id")} for e in evs]


def _phase(api: Api, deployment: str, seconds: float, connections: int, report: Report, label: str) -> dict:
    gw = placement(api, deployment)["api"]
    report(f"figure7: {label}: {connections} connections for {seconds:g} s at the gateway on {gw['node']} ...")
    since, started = last_event_id(api), time.time()
    proc = start_load(gw, FIG7_PAYLOAD, seconds, connections)
    time.sleep(0.5 + min(seconds / 2, 5))
    watts = _cluster_watts(api)  # under load
    load = finish_load(proc)
    node_id = nodes(api)[gw["node"]]["id"]
    series = _queues(api, node_id, started)
    queues = [q for _, q in series]
    evs = events(api, since, "orchestrator.")
    first = next((e for e in evs if e["kind"] == "orchestrator.detection"), None)
    rps = load["throughput_rps"]
    return dict(load, gateway=gw["node"], gateway_kind=gw["node_kind"], watts=watts, energy_source="model",
                joules_per_request=joules_per_request(watts, rps),
                queue={"heartbeats": len(queues), "max": max(queues, default=None),
                       "median": sorted(queues)[len(queues) // 2] if queues else None,
                       "at_least_32": sum(q >= 32 for q in queues)},
                first_detection=_detection_timing(series, first, started),
                decided=any(e["kind"] == "orchestrator.decision" for e in evs),
                events=_summarise_events(evs, started))


def _switch(api: Api, deployment: str, seconds: float, connections: int, report: Report) -> dict:
    """Under the same load, the orchestrator switched to `migrate`; when it detected, decided and moved."""
    gw = placement(api, deployment)["api"]
    nic_id = nodes(api)[gw["node"]]["id"]
    since, started = last_event_id(api), time.time()
    window = max(seconds, 15.0)
    proc = start_load(gw, FIG7_PAYLOAD, window, connections)
    time.sleep(1.0)
    switched_at = time.time()
    runtime_switch = set_mode(api, "migrate")
    how = ("PUT /api/v1/orchestrator" if runtime_switch
           else "no runtime switch here: the observed decision is carried out by this benchmark")
    report(f"figure7: orchestrator switched to migrate ({how}) ...")
    deadline, detection, decision, done, manual = started + window + 0.5, None, None, None, None
    while time.time() < deadline and done is None:
        evs = events(api, since, "orchestrator.") + events(api, since, "migration.")
        mine = [e for e in evs if e["subject"] == f"node/{nic_id}" or e["data"].get("instance_id") == gw["id"]
                or e["subject"] == f"instance/{gw['id']}"]
        detection = detection or next((e for e in mine if e["kind"] == "orchestrator.detection"
                                       and ts(e["ts"]) >= switched_at - 0.5), None)
        decision = decision or next((e for e in mine if e["kind"] == "orchestrator.decision"
                                     and ts(e["ts"]) >= switched_at - 0.5), None)
        if decision and not runtime_switch and manual is None:
            target = next(n["name"] for n in nodes(api).values() if n["id"] == decision["data"]["target_node_id"])
            manual = migrate(api, decision["data"]["instance_id"], target)
        done = next((e for e in mine if e["kind"] in ("migration.succeeded", "migration.failed",
                                                      "migration.rolled_back") and ts(e["ts"]) >= switched_at), None)
        time.sleep(0.05)
    load = finish_load(proc, timeout_s=window + 60)
    queues = _queues(api, nic_id, started)
    at = lambda e: None if e is None else round(ts(e["ts"]) - switched_at, 3)  # noqa: E731
    return {"runtime_switch": runtime_switch, "manual_migration": manual, "load": load,
            "switched_after_load_s": round(switched_at - started, 3),
            "detection_s": at(detection), "decision_s": at(decision), "migrated_s": at(done),
            "migration_outcome": done["kind"] if done else None, "detection": _detection_timing(queues, detection,
                                                                                                started),
            "queue_lengths": [q for _, q in queues][:80],
            "events": _summarise_events(events(api, since, "orchestrator."), switched_at)}


def figure7_section(seconds: float, connections: int, report: Report) -> dict:
    """Figure 7 on 3 x type1-smartnic: IOT-TS, gateway forced onto a NIC, before/after the orchestrator."""
    with rack_up(3, "type1-smartnic", report, extra_env=OBSERVE_ENV) as api:
        set_mode(api, "observe")
        deployment, _ = deploy(api, fig7_application())
        forced = _gateway_to_nic(api, deployment, report)
        time.sleep(1.0)
        before = _phase(api, deployment, seconds, connections, report, "before (observe)")
        time.sleep(6.0)  # the detector's cool-down (5 s) after the observed decision; the queue drains
        switch = _switch(api, deployment, seconds, connections, report)
        time.sleep(1.0)
        after = _phase(api, deployment, seconds, connections, report, "after")
    return {"section": "figure7", "seconds": seconds, "connections": connections, "energy_source": "model",
            "paper": PAPER_FIG7, "forced": forced, "before": before, "switch": switch, "after": after}
