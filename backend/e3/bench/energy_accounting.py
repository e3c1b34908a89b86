"""What energy accounting adds to the controller's heartbeat intake, per heartbeat (issue 20: <= 2 µs).

In this process, no network: the intake's `accept` (controller.heartbeat_intake) runs over the same
batches of protobuf Heartbeats twice, once without an energy ledger and once with one (e3.energy.ledger:
each heartbeat counted in its node's step and totals); the difference per heartbeat is the ledger's cost on
the hot path. Then the steps are closed (attribution of every node's step to its instances, and the rows
made), timed, and divided by the heartbeats they held: the cost the controller pays once per step, spread
over its heartbeats. Writing the rows to Postgres is in a worker thread and not counted here (the ingest
benchmark's controller CPU includes it).

Each variant runs `rounds` times interleaved (A, B, A, B, ...), and the median of each is taken: the machine
is shared and noisy.
"""

import statistics
import time
import uuid
from dataclasses import dataclass
from types import SimpleNamespace

from e3.controller.heartbeat_intake import HeartbeatIntake
from e3.energy.ledger import STEP_S, EnergyLedger
from e3.rpc.pb import agent_pb2

TARGET_US = 2.0


@dataclass(frozen=True)
class AccountingConfig:
    nodes: int = 1000
    instances: int = 2  # per heartbeat
    heartbeats_per_node: int = 200  # per round: one 10 s step of a 50 ms period, as the controller closes them
    rounds: int = 5


def _batches(nodes: list[str], instances: int, per_node: int, t0: float) -> list[list]:
    ids = {n: [str(uuid.uuid4()) for _ in range(instances)] for n in nodes}
    out = []
    for k in range(per_node):
        ts = round((t0 + k * 0.05) * 1e9)
        out.append([agent_pb2.Heartbeat(
            node_id=n, timestamp_unix_ns=ts, queue_length=2, cpu_utilization=0.5, power_watts=100.0 + k % 7,
            power_source=agent_pb2.POWER_SOURCE_MODEL,
            instances=[agent_pb2.InstanceStats(instance_id=i, requests_completed=40, exec_time_us=20.0,
                                               exec_time_ema_us=20.0, cpu_share=0.2) for i in ids[n]])
            for n in nodes])
    return out


def _intake(node_ids: list[uuid.UUID], ledger: EnergyLedger | None, t0: float) -> HeartbeatIntake:
    cluster = uuid.uuid4()
    tracked = {n: SimpleNamespace(node_id=n, cluster_id=cluster, agent_id="bench", token_id=None, kind="smartnic",
                                  name=f"s/{n}", last_seen=0.0, power_override=None, latest_ts_ns=0,
                                  lease_epoch=0)
               for n in node_ids}
    return HeartbeatIntake(tracked, clock=time.monotonic, wall_ns=lambda: round(t0 * 1e9), energy=ledger)


def run_energy_accounting(cfg: AccountingConfig = AccountingConfig(), report=print) -> dict:
    node_ids = [uuid.uuid4() for _ in range(cfg.nodes)]
    texts = [str(n) for n in node_ids]
    heartbeats = cfg.nodes * (cfg.heartbeats_per_node - 1)  # the first of each node warms the caches
    report(f"energy accounting: {cfg.nodes:,} nodes x {cfg.heartbeats_per_node} heartbeats, {cfg.instances} "
           f"instances each, {cfg.rounds} rounds")
    plain, counted, closing = [], [], []
    for r in range(cfg.rounds):
        t0 = (time.time() - 60) // STEP_S * STEP_S + 0.001  # one whole step, within the intake's accepted ages
        batches = _batches(texts, cfg.instances, cfg.heartbeats_per_node, t0)
        for ledger in (None, EnergyLedger()):
            intake = _intake(node_ids, ledger, t0 + cfg.heartbeats_per_node * 0.05)
            intake.accept("bench", batches[0][:1])  # warm its caches: every node known, as in steady state
            for n in texts:
                intake.accept("bench", [b for b in batches[0] if b.node_id == n][:1])
            start = time.process_time()
            for batch in batches[1:]:  # the first was taken: again, it would be refused as out of order
                intake.accept("bench", batch)
            took = time.process_time() - start
            if ledger is None:
                plain.append(took)
                continue
            counted.append(took)
            start = time.process_time()
            ledger.close(float("inf"), lambda node: 60.0, lambda iid: 1.0)
            closing.append(time.process_time() - start)
    per = lambda xs: statistics.median(xs) / heartbeats * 1e6  # noqa: E731  µs per heartbeat
    added, close = per(counted) - per(plain), per(closing)
    return dict(nodes=cfg.nodes, instances=cfg.instances, heartbeats_per_round=heartbeats, rounds=cfg.rounds,
                accept_us=round(per(plain), 3), accept_with_ledger_us=round(per(counted), 3),
                ledger_add_us=round(added, 3), close_us=round(close, 3), total_us=round(added + close, 3),
                target_us=TARGET_US, ratio_to_target=round((added + close) / TARGET_US, 3))


def render(r: dict) -> str:
    met = "met" if r["total_us"] <= r["target_us"] else "NOT met"
    return "\n".join([
        f"Energy accounting in the intake ({r['nodes']:,} nodes, {r['instances']} instances per heartbeat, "
        f"median of {r['rounds']} rounds of {r['heartbeats_per_round']:,} heartbeats; in-process, no network)",
        f"  accept without the ledger      {r['accept_us']:8.3f} µs/heartbeat",
        f"  accept with the ledger         {r['accept_with_ledger_us']:8.3f} µs/heartbeat",
        f"  ledger on the hot path         {r['ledger_add_us']:8.3f} µs/heartbeat",
        f"  closing steps (attribution)    {r['close_us']:8.3f} µs/heartbeat (once per 10 s step, spread)",
        f"  [{met}] attribution and rollups <= {r['target_us']:g} µs/heartbeat: {r['total_us']:.3f} µs "
        f"({r['ratio_to_target']:.2f}x the bound)",
    ])
