"""Two real controllers, real e3-agent processes given both addresses (issue 22, item 3): the agents spread across
them by the documented hash; `kill -9` of one, and each of its nodes registers at the other and reports again
there; none goes down, none is failed over; the heartbeats counted meanwhile are only those the killed one had
in flight; started again, the killed one takes none of them down. The time until all of them report again is
printed (a target, not asserted: machines are noisy)."""

import json
import os
import signal
import time
import uuid

import pytest
import redis
from helpers import start_process, stop_process, wait_until
from local_trio import AGENT
from sqlalchemy import select

from e3.core.db import session_scope
from e3.core.embedded import free_tcp_port
from e3.models import Cluster, ComputeNode, Event, controllers, node_leases

SERVERS = 4


def _fnv1a(text: str) -> int:
    h = 2166136261
    for byte in text.encode():
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def _cluster_spread_over_two() -> str:
    """A cluster name whose SERVERS servers' agents prefer both of two addresses (the documented hash)."""
    servers = [f"r0000-s{i:02d}" for i in range(SERVERS)]
    return next(name for name in (f"pair{i}" for i in range(100))
                if {_fnv1a(f"{name}/{s}") % 2 for s in servers} == {0, 1})


def _holders(cluster: str) -> dict[str, str]:
    """Each agent-run node of the cluster (id) -> the address of the controller holding its lease."""
    with session_scope() as session:
        rows = session.execute(select(ComputeNode.id, controllers.c.address)
                               .join(Cluster, Cluster.id == ComputeNode.cluster_id)
                               .join(node_leases, node_leases.c.node_id == ComputeNode.id)
                               .join(controllers, controllers.c.id == node_leases.c.controller_id)
                               .where(Cluster.name == cluster))
        return {str(node_id): address for node_id, address in rows}


def _states(cluster: str) -> dict[str, str]:
    with session_scope() as session:
        rows = session.execute(select(ComputeNode.id, ComputeNode.state).join(Cluster)
                               .where(Cluster.name == cluster, ComputeNode.agent_id.is_not(None)))
        return {str(node_id): state for node_id, state in rows}


def _latest_ts(r: redis.Redis, cluster_id: str, node_id: str) -> float:
    """The node's latest heartbeat time (seconds) in the live state, 0 when there is none."""
    raw = r.hget(f"e3:latest:{cluster_id}", node_id)
    if not raw:
        return 0.0
    from datetime import datetime

    return datetime.fromisoformat(json.loads(raw)["ts"]).timestamp()


def _events(kinds: tuple[str, ...], after_id: int) -> list[tuple[str, str]]:
    with session_scope() as session:
        return [(e.kind, e.subject) for e in session.scalars(select(Event).where(Event.kind.in_(kinds),
                                                                                Event.id > after_id))]


def _last_event_id() -> int:
    with session_scope() as session:
        return session.scalar(select(Event.id).order_by(Event.id.desc()).limit(1)) or 0


@pytest.fixture
def two_controllers(backing_services):
    procs = {}
    for name in ("a", "b"):
        port = free_tcp_port()
        procs[f"127.0.0.1:{port}"] = start_process(["controller", "--port", str(port)], backing_services,
                                                   f"controller-{name}.log", lambda log: b"controller listening" in log)
    yield procs
    for proc in procs.values():
        stop_process(proc)


def test_kill_9_of_a_controller_its_agents_report_at_the_other_and_nothing_fails_over(e3, two_controllers,
                                                                                       backing_services, tmp_path):
    if not AGENT.is_file():
        pytest.fail(f"{AGENT} is missing: `make test` builds it (make agents)")
    cluster = _cluster_spread_over_two()
    addresses = list(two_controllers)
    env = dict(E3_DATA_DIR=str(tmp_path / "data"), E3_AGENT_BIN=str(AGENT))
    up = e3("cluster", "up", "--mode", "local", "--servers", str(SERVERS), "--type", "beefy", "--name", cluster,
            "--controller", ",".join(addresses), "--output", "json", extra_env=env)
    agents = json.loads(up.stdout)
    r = redis.Redis.from_url(backing_services["redis_url"])
    try:
        with session_scope() as session:
            cluster_id = str(session.scalar(select(Cluster.id).where(Cluster.name == cluster)))
        held = wait_until(lambda: (h := _holders(cluster)) and len(h) == len(agents)
                          and set(h.values()) == set(addresses) and h, timeout=20,
                          what="every node held, by both controllers")
        victim = addresses[0]
        moving = [node for node, address in held.items() if address == victim]
        staying = [node for node, address in held.items() if address != victim]
        wait_until(lambda: all(_latest_ts(r, cluster_id, n) > time.time() - 1 for n in held), timeout=15,
                   what="every node reporting")
        before = _last_event_id()

        os.kill(two_controllers[victim].pid, signal.SIGKILL)
        killed_at = time.time()
        two_controllers[victim].wait(10)

        def reported_again():
            h = _holders(cluster)
            return all(h.get(n) == addresses[1] and _latest_ts(r, cluster_id, n) > killed_at for n in moving)

        wait_until(reported_again, timeout=20, what="the killed controller's nodes reporting at the other")
        moved_s = time.time() - killed_at
        print(f"\ntarget: kill -9 of a controller: its {len(moving)} nodes reported again at the other after "
              f"{moved_s:.2f} s (target <= 2 s; {len(staying)} nodes stayed where they were)")
        # started again on its port (as `e3 up`'s supervisor does): it takes none of the other's nodes down
        port = victim.rsplit(":", 1)[1]
        two_controllers[victim] = start_process(["controller", "--port", port], backing_services,
                                                "controller-a-again.log", lambda log: b"controller listening" in log)
        time.sleep(4)  # past the killed controller's lease (2 s) and the resume grace (1 s) together
        assert set(_states(cluster).values()) == {"up"}
        assert _events(("node.down", "node.suspect", "failover.started"), before) == []
        assert _holders(cluster) == {n: addresses[1] for n in held}
    finally:
        e3("cluster", "down", cluster, extra_env=env, check=False)
        for agent in agents:
            try:
                os.kill(agent["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
