"""The paper's Figure 7 on the emulated rack (root): an application with microservices moved onto the SmartNICs by
hand, driven past a NIC's capacity; the same load before (orchestrator observing) and after the orchestrator,
switched to `migrate`, moved what it found troubling. Runs its own `e3 up` (rack.rack_up) with
E3_ORCHESTRATOR=observe; every emulated server shares this machine's cores; energy is the power model's
(source: model).

The benchmark (`figure7_section`) runs IOT-TS with only its gateway on a NIC; the experiment
(e3.experiments.fig7) runs the paper's four applications (`FIG7_APPS`) with every microservice that fits on a NIC.
"""

import dataclasses
import os
import time
from dataclasses import dataclass, field
from datetime import datetime

from e3 import catalog
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

PAPER_FIG7 = "J/request and p99 improve once the gateway is moved from the SmartNIC to the host (paper Figure 7)"
GATEWAY_CONFIG = {"keys": API_KEY, "rate": "100000000", "burst": "100000000"}  # never the rate limit that answers


@dataclass(frozen=True)
class Fig7App:
    """One application of Figure 7 as run here: the catalogue's DAG, one shard per node, its services' configuration,
    and a request that walks one path of the DAG from `entry` (one line per stage: each agent serves the first
    line and forwards the rest to one downstream instance, round robin)."""

    template: str  # the catalogue's application
    entry: str  # the DAG node the load is sent to
    payload: str  # e3-loadgen's request ("\\n" separates the stages' lines)
    config: dict[str, dict[str, str]] = field(default_factory=dict)  # per DAG node
    dropped_edges: tuple[tuple[str, str], ...] = ()  # edges left out: a request line no service there could answer
    note: str = ""

    def application(self, name: str | None = None, shards: int = 1, replicas: int = 0) -> dict:
        spec = ApplicationSpec.from_document(catalog.template(self.template))
        spec = dataclasses.replace(spec, name=name or f"fig7-{self.template}",
                                   edges=[e for e in spec.edges if (e.from_, e.to) not in self.dropped_edges])
        for node in spec.nodes:
            spec = spec.replace_node(node.id, shards=shards, replicas=replicas,
                                     config=dict(self.config.get(node.id, node.config)))
        return spec.to_document()


FIG7_APPS = {
    "rta-ptc": Fig7App("rta-ptc", "classify", "1,1\\nADD topic-1\\nADD topic-1 5",
                       {"classify": {"points": "0,0:low|1,1:high", "k": "1"}}),
    "rta-sf": Fig7App("rta-sf", "count", "ADD sender-1\\nADD sender-1 5\\nPUT sender-1 ham",
                      {"bayes": {"train": "spam:buy cheap pills now|ham:meeting at noon tomorrow"}},
                      note="count forwards round robin to spike and bayes: 'ADD sender-1 5' is a sample to spike "
                           "and a text to classify to bayes; both forward 'PUT ...' to the verdicts kvs"),
    "iot-dh": Fig7App("iot-dh", "api", f"{API_KEY} device-1\\nGET device-1\\nSELECT WHERE id = 1",
                      {"api": GATEWAY_CONFIG, "store": {"columns": "id:int,temp:real"},
                       "classify": {"points": "0,0:low|1,1:high", "k": "1"}},
                      dropped_edges=(("api", "count"), ("api", "classify")),
                      note="the edges api -> count and api -> classify are left out (count and classify still run, "
                           "without traffic): the gateway forwards round robin and no one request line is one that "
                           "kvs, count and knn all answer"),
    "iot-ts": Fig7App("iot-ts", "api", f"{API_KEY} thermostat-1\\nSELECT WHERE id = 1",
                      {"api": GATEWAY_CONFIG, "sql": {"columns": "id:int,temp:real"}}),
}


def fig7_application() -> dict:
    """The benchmark's application: the demo's IOT-TS with one gateway shard (the one the load and the orchestrator
    act on)."""
    spec = dataclasses.replace(ApplicationSpec.from_document(demo_application()), name="bench-fig7")
    return spec.replace_node("api", shards=1).to_document()


BENCH_APP = Fig7App("iot-ts", "api", FIG7_APPS["iot-ts"].payload)


def to_nics(api: Api, deployment: str, dag_nodes: list[str], report: Report) -> list[dict]:
    """Move each of `dag_nodes`' primaries (first shard) that runs on a host onto a SmartNIC with room, its own
    server's NIC first, never onto the server of its backup; the moves made, and the nodes left on a host (no NIC
    took them) with `moved` False."""
    out = []
    for dag_node in dag_nodes:
        placed = placement(api, deployment)  # read again per move: each move changes where the next can go
        inst = placed[dag_node]
        if inst["node_kind"] == "smartnic" or "smartnic" not in catalog.service_types()[inst["service"]].platforms:
            out.append({"dag_node": dag_node, "service": inst["service"], "moved": False, "node": inst["node"]})
            continue
        backup = placed.get(f"{dag_node}-backup", {}).get("server")
        nics = sorted((n for n in nodes(api).values() if n["kind"] == "smartnic" and n["server"] != backup),
                      key=lambda n: n["server"] != inst["server"])
        move = {"state": "no smartnic"}
        for nic in nics:
            report(f"figure7: {dag_node} ({inst['service']}) {inst['node']} -> {nic['name']} (manual) ...")
            move = migrate(api, inst["id"], nic["name"])
            if move["state"] == "succeeded":
                break
        done = move["state"] == "succeeded"
        out.append(dict(move, dag_node=dag_node, service=inst["service"], moved=done,
                        node=move["target"] if done else inst["node"]))
    return out


def _gateway_to_nic(api: Api, deployment: str, report: Report) -> dict:
    moved = to_nics(api, deployment, ["api"], report)[0]
    if placement(api, deployment)["api"]["node_kind"] != "smartnic":
        raise RuntimeError(f"figure7: the gateway could not be moved onto a SmartNIC: {moved}")
    return moved


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
             "reason": e["data"].get("reason"), "target_node_id": e["data"].get("target_node_id"),
             "service": (e["data"].get("detail") or {}).get("service"),
             "cpu_share": (e["data"].get("detail") or {}).get("cpu_share")} for e in evs]


def _nic_ids(api: Api, deployment: str) -> dict[str, str]:
    """The SmartNICs the deployment's instances run on: node id -> name."""
    all_nodes = nodes(api)
    names = {i["node"] for i in api.all_pages(f"/api/v1/deployments/{deployment}/placement")
             if i["node_kind"] == "smartnic"}
    return {all_nodes[name]["id"]: name for name in names}


def _phase(api: Api, deployment: str, app: Fig7App, seconds: float, connections: int, report: Report,
           label: str) -> dict:
    entry = placement(api, deployment)[app.entry]
    report(f"figure7: {label}: {connections} connections for {seconds:g} s at {app.entry} on {entry['node']} ...")
    nics = _nic_ids(api, deployment)
    since, started = last_event_id(api), time.time()
    proc = start_load(entry, app.payload, seconds, connections)
    time.sleep(0.5 + min(seconds / 2, 5))
    watts = _cluster_watts(api)  # under load
    machine_load = os.getloadavg()[0]  # everything emulated shares this machine's cores
    load = finish_load(proc)
    node_id = nodes(api)[entry["node"]]["id"]
    series = _queues(api, node_id, started)
    queues = [q for _, q in series]
    nic_queue_max = {name: max((q for _, q in _queues(api, nic, started)), default=None) for nic, name in nics.items()}
    evs = events(api, since, "orchestrator.")
    first = next((e for e in evs if e["kind"] == "orchestrator.detection"), None)
    rps = load["throughput_rps"]
    return dict(load, entry=entry["node"], entry_kind=entry["node_kind"], watts=watts, energy_source="model",
                machine_load_1m=machine_load,
                joules_per_request=joules_per_request(watts, rps),
                queue={"heartbeats": len(queues), "max": max(queues, default=None),
                       "median": sorted(queues)[len(queues) // 2] if queues else None,
                       "at_least_32": sum(q >= 32 for q in queues)},
                nic_queue_max=nic_queue_max,
                first_detection=_detection_timing(series, first, started),
                decided=any(e["kind"] == "orchestrator.decision" for e in evs),
                events=_summarise_events(evs, started))


MIGRATION_ENDS = ("migration.succeeded", "migration.failed", "migration.rolled_back")


def _switch(api: Api, deployment: str, app: Fig7App, seconds: float, connections: int, report: Report,
            hold: bool = False) -> dict:
    """Under the same load, the orchestrator switched to `migrate`; when it detected, decided and moved (the first
    detection, decision and migration about the deployment's NICs or instances). With `hold`, the load runs the
    whole window whatever moved (the orchestrator may move more than one instance), else it stops at the first
    migration's end."""
    entry = placement(api, deployment)[app.entry]
    nics = _nic_ids(api, deployment)
    instance_ids = {i["id"] for i in api.all_pages(f"/api/v1/deployments/{deployment}/placement")}
    entry_nic = nodes(api)[entry["node"]]["id"]
    since, started = last_event_id(api), time.time()
    window = max(seconds, 15.0)
    proc = start_load(entry, app.payload, window, connections)
    time.sleep(1.0)
    switched_at = time.time()
    runtime_switch = set_mode(api, "migrate")
    how = ("PUT /api/v1/orchestrator" if runtime_switch
           else "no runtime switch here: the observed decision is carried out by this benchmark")
    report(f"figure7: orchestrator switched to migrate ({how}) ...")
    deadline, detection, decision, done, manual = started + window + 0.5, None, None, None, None
    while time.time() < deadline and (hold or done is None):
        evs = events(api, since, "orchestrator.") + events(api, since, "migration.")
        mine = [e for e in evs if e["subject"].removeprefix("node/") in nics or e["data"].get("instance_id")
                in instance_ids or e["subject"].removeprefix("instance/") in instance_ids]
        after_switch = [e for e in mine if ts(e["ts"]) >= switched_at - 0.5]
        detection = detection or next((e for e in after_switch if e["kind"] == "orchestrator.detection"), None)
        decision = decision or next((e for e in after_switch if e["kind"] == "orchestrator.decision"), None)
        if decision and not runtime_switch and manual is None:
            target = next(n["name"] for n in nodes(api).values() if n["id"] == decision["data"]["target_node_id"])
            manual = migrate(api, decision["data"]["instance_id"], target)
        done = next((e for e in mine if e["kind"] in MIGRATION_ENDS and ts(e["ts"]) >= switched_at), None)
        time.sleep(0.05)
    load = finish_load(proc, timeout_s=window + 60)
    queue_node = (detection or {}).get("subject", "").removeprefix("node/") or entry_nic
    queues = _queues(api, queue_node, started)
    at = lambda e: None if e is None else round(ts(e["ts"]) - switched_at, 3)  # noqa: E731
    return {"runtime_switch": runtime_switch, "manual_migration": manual, "load": load,
            "switched_after_load_s": round(switched_at - started, 3),
            "detection_s": at(detection), "decision_s": at(decision), "migrated_s": at(done),
            "migration_outcome": done["kind"] if done else None, "detection": _detection_timing(queues, detection,
                                                                                                started),
            "queue_lengths": [q for _, q in queues][:80],
            "events": _summarise_events(events(api, since, "orchestrator."), switched_at)}


def moved_to_hosts(before: list[dict], after: list[dict]) -> list[dict]:
    """The instances that ran on a SmartNIC in `before` and on a host in `after` (placement rows, by id)."""
    was = {i["id"]: i for i in before}
    return [{"dag_node": i["dag_node"], "service": i["service"], "shard": i["shard"], "from": was[i["id"]]["node"],
             "to": i["node"]}
            for i in after if i["id"] in was and was[i["id"]]["node_kind"] == "smartnic" and i["node_kind"] == "host"]


def run_app(api: Api, app: Fig7App, seconds: float, connections: int, report: Report) -> dict:
    """One application of the experiment on a rack that is up (orchestrator observing): deployed, every microservice
    that fits moved onto a NIC, the load with the orchestrator off, switched on for a window, then the load again;
    the deployment is deleted at the end."""
    set_mode(api, "observe")
    doc = app.application()
    deployment, _ = deploy(api, doc)
    try:
        onto_nics = to_nics(api, deployment, [n.id for n in ApplicationSpec.from_document(doc).nodes], report)
        time.sleep(1.0)
        off = _phase(api, deployment, app, seconds, connections, report, f"{app.template} off (observe)")
        time.sleep(6.0)  # the detector's cool-down (5 s) after the observed decision; the queue drains
        placed_before = api.all_pages(f"/api/v1/deployments/{deployment}/placement")
        switch = _switch(api, deployment, app, seconds, connections, report, hold=True)
        set_mode(api, "observe")  # measure the placement the orchestrator left
        moved = moved_to_hosts(placed_before, api.all_pages(f"/api/v1/deployments/{deployment}/placement"))
        time.sleep(1.0)
        on = _phase(api, deployment, app, seconds, connections, report, f"{app.template} on (after migrate)")
    finally:
        api.request("DELETE", f"/api/v1/deployments/{deployment}")
        api.request("DELETE", f"/api/v1/applications/{doc['metadata']['name']}", missing_ok=True)
    return {"app": app.template, "entry": app.entry, "payload": app.payload, "onto_nics": onto_nics, "off": off,
            "switch": switch, "on": on, "moved": moved}


def figure7_section(seconds: float, connections: int, report: Report) -> dict:
    """Figure 7 on 3 x type1-smartnic: IOT-TS, gateway forced onto a NIC, before/after the orchestrator."""
    with rack_up(3, "type1-smartnic", report, extra_env=OBSERVE_ENV) as api:
        set_mode(api, "observe")
        deployment, _ = deploy(api, fig7_application())
        forced = _gateway_to_nic(api, deployment, report)
        time.sleep(1.0)
        before = _phase(api, deployment, BENCH_APP, seconds, connections, report, "before (observe)")
        time.sleep(6.0)  # the detector's cool-down (5 s) after the observed decision; the queue drains
        switch = _switch(api, deployment, BENCH_APP, seconds, connections, report)
        time.sleep(1.0)
        after = _phase(api, deployment, BENCH_APP, seconds, connections, report, "after")
    return {"section": "figure7", "seconds": seconds, "connections": connections, "energy_source": "model",
            "paper": PAPER_FIG7, "forced": forced, "before": before, "switch": switch, "after": after}
