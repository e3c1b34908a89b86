"""Agent-overhead benchmark: what one real e3-agent costs in CPU while it heartbeats.

Started here in a temporary directory and stopped at the end (also on Ctrl-C or error): embedded
Postgres and Redis, a cluster of one beefy server, the controller as its own process, and the real
`e3-agent` binary registered as the server's host node (heartbeat every `period_ms`, `--cpu-source
engine`). For each step of `instances` (0, then more kvs instances deployed onto it through the
normal placement and command path), the agent's CPU time is read with psutil over `seconds` while it
is otherwise idle, and the heartbeats the controller stored for the node over the same window are
counted. The issue's target (at most 2% of a core at 20 heartbeats/s) is reported beside the figures,
never asserted: the machine is shared.
"""

import os
import shutil
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from e3.bench.stack import cpu_s, setup_database, start_controller, stop_process

TARGET_CPU_PCT = 2.0  # of one core, at 20 heartbeats/s
CLUSTER = "bench-agent"


@dataclass
class AgentBenchConfig:
    seconds: float = 20.0
    period_ms: int = 50
    instances: list[int] = field(default_factory=lambda: [0, 8])  # kvs instances on the node, per step


def _deploy_kvs(count: int, step: int) -> None:
    """`count` kvs instances onto the cluster through placement, as the worker would."""
    from e3.core.db import session_scope
    from e3.core.security import SYSTEM
    from e3.schemas.dag import validate_application
    from e3.schemas.deployment import DeploymentCreate
    from e3.services.applications import create_application
    from e3.services.deployments import create_deployment, run_placement

    name = f"bench-kvs-{step}"
    spec = validate_application({"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": name},
                                 "spec": {"nodes": [{"id": "kv", "service": "kvs", "shards": count, "replicas": 0}]}})
    with session_scope() as session:
        create_application(session, spec, SYSTEM)
        _, job = create_deployment(session, DeploymentCreate(application=name, cluster=CLUSTER), SYSTEM)
        job_id = job.id
    with session_scope() as session:
        run_placement(session, job_id)


def _instance_states() -> dict[str, int]:
    from sqlalchemy import func, select

    from e3.core.db import session_scope
    from e3.models import Instance

    with session_scope() as session:
        return dict(session.execute(select(Instance.state, func.count()).group_by(Instance.state)).all())


def _heartbeats_between(node_id: uuid.UUID, t0: float, t1: float) -> int:
    from datetime import datetime, timezone

    from sqlalchemy import func, select

    from e3.core.db import session_scope
    from e3.models import heartbeats

    with session_scope() as session:
        return session.scalar(select(func.count()).select_from(heartbeats).where(
            heartbeats.c.node_id == node_id,
            heartbeats.c.ts >= datetime.fromtimestamp(t0, timezone.utc),
            heartbeats.c.ts < datetime.fromtimestamp(t1, timezone.utc)))


def run_agent_bench(cfg: AgentBenchConfig, report=print) -> dict:
    """One run; returns its figures. Everything started here is stopped before returning or raising."""
    import psutil

    from e3.core.processes import wait_registered
    from e3.emulation.binaries import agent_binary
    from e3.core.embedded import EmbeddedPostgres, EmbeddedRedis

    binary = agent_binary()
    workdir = Path(tempfile.mkdtemp(prefix="e3-bench-agent-"))
    pg = redis = controller = agent = None
    try:
        report(f"starting Postgres, Redis and the controller in {workdir}")
        pg = EmbeddedPostgres(workdir / "postgres")
        database_url = pg.start()
        redis = EmbeddedRedis(workdir / "redis")
        redis_url = redis.start()
        os.environ["REDIS_URL"] = redis_url  # placement reports progress; commands go through Postgres
        token, agents = setup_database(database_url, 1, CLUSTER, server_type="beefy")
        node_name = agents[0][1][0][0]
        controller, port = start_controller(workdir, database_url, redis_url, cfg.period_ms)

        token_file = workdir / "agent-token"
        token_file.write_text(token + "\n")
        token_file.chmod(0o600)
        agent_log = workdir / "agent.log"
        with open(agent_log, "wb") as out:
            agent = subprocess.Popen([str(binary), "--controller", f"127.0.0.1:{port}", "--token-file",
                                      str(token_file), "--cluster", CLUSTER, "--node", node_name, "--address",
                                      "127.0.0.1", "--workers", "2", "--cpu-source", "engine", "--log-level", "warn"],
                                     stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        registered = wait_registered(agent, agent_log, time.monotonic() + 30)
        node_id = uuid.UUID(registered.split(" as ")[1].split()[0])
        process = psutil.Process(agent.pid)
        steps, deployed = [], 0
        for step, wanted in enumerate(sorted(set(cfg.instances))):
            if wanted > deployed:
                report(f"deploying {wanted - deployed} kvs instance(s) onto the agent's node")
                _deploy_kvs(wanted - deployed, step)
                deadline = time.monotonic() + 30
                while _instance_states().get("running", 0) < wanted:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"instances not running after 30 s: {_instance_states()}")
                    time.sleep(0.2)
                deployed = wanted
            time.sleep(1.0)  # settle
            report(f"measuring {cfg.seconds:g} s with {deployed} instance(s)")
            cpu0, t0 = cpu_s(process), time.time()
            time.sleep(cfg.seconds)
            cpu1, t1 = cpu_s(process), time.time()
            time.sleep(0.5)  # the last heartbeats of the window reach Postgres
            beats = _heartbeats_between(node_id, t0, t1)
            cpu_pct = round(100.0 * (cpu1 - cpu0) / (t1 - t0), 3)  # the ratio below is of the printed figure
            steps.append(dict(instances=deployed, seconds=round(t1 - t0, 2), cpu_pct=cpu_pct,
                              heartbeats_per_s=round(beats / (t1 - t0), 2),
                              cpu_vs_target=round(cpu_pct / TARGET_CPU_PCT, 3)))
        return dict(period_ms=cfg.period_ms, target_cpu_pct=TARGET_CPU_PCT, agent=registered, steps=steps,
                    machine_cores=os.cpu_count(), note="CPU is % of one core (user + system) of the e3-agent "
                                                       "process; the machine is shared with Postgres, Redis and "
                                                       "the controller")
    finally:
        stop_process(agent)
        stop_process(controller)
        if redis:
            redis.stop()
        if pg:
            pg.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def render(result: dict) -> str:
    lines = [f"Agent overhead: one e3-agent, heartbeat every {result['period_ms']} ms "
             f"(target: at most {result['target_cpu_pct']:g}% of a core at 20 heartbeats/s)",
             f"  {result['agent']}", "",
             f"  {'instances':>9} {'agent CPU, % of a core':>23} {'heartbeats/s stored':>20} {'CPU / target':>13}"]
    for s in result["steps"]:
        lines.append(f"  {s['instances']:>9} {s['cpu_pct']:>23.3f} {s['heartbeats_per_s']:>20.1f} "
                     f"{s['cpu_vs_target']:>13.3f}")
    lines += ["", f"  {result['note']}."]
    return "\n".join(lines)
