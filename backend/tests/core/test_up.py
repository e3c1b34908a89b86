"""`e3 up` as a user runs it: embedded Postgres and Redis, API, worker, controller and a local cluster of
real agents; Ctrl-C leaves nothing behind."""

import os
import signal
import subprocess
import sys
import time

import httpx
import psutil
import pytest
from helpers import REPO_ROOT, process_alive, wait_until

from e3.core.embedded import free_tcp_port
from e3.core.envfile import read_env_file

CONTROLLER_PORT = free_tcp_port()


def _user_env(port) -> dict:
    """A user's shell: none of the test suite's own service URLs."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "E3_URL", "E3_TOKEN", "E3_DATA_DIR")}
    # local mode, even as root: the emulated rack path is tested by tests/integration/test_rack_cluster.py
    return dict(env, E3_API_PORT=str(port), E3_CONTROLLER_PORT=str(CONTROLLER_PORT), E3_CLUSTER_MODE="local")


def _controller_serving() -> bool:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(f"127.0.0.1:{CONTROLLER_PORT}") as channel:
        try:
            answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=2)
        except grpc.RpcError:
            return False
    return answer.status == health_pb2.HealthCheckResponse.SERVING


def _start(tmp_path, port, run=1, **settings):
    env = dict(_user_env(port), **settings)
    log = (tmp_path / f"up{run}.log").open("wb")
    return subprocess.Popen([sys.executable, "-m", "e3", "up"], cwd=tmp_path, env=env, stdout=log,
                            stderr=subprocess.STDOUT)


def _wait_up(proc, tmp_path, run=1, timeout=120):
    log = tmp_path / f"up{run}.log"
    deadline = time.monotonic() + timeout
    while b"E3 is up" not in log.read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"e3 up did not come up:\n{log.read_text()[-4000:]}")
        time.sleep(0.25)


def _processes_using(path) -> list[psutil.Process]:
    found = []
    for p in psutil.process_iter(["cmdline", "environ"]):
        try:
            if any(str(path) in part for part in p.info["cmdline"] or []) or \
                    str(path) in (p.info["environ"] or {}).get("E3_DATA_DIR", ""):
                found.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return found


def _gone(path, timeout=15.0) -> list:
    """Processes still using `path` once `timeout` has passed (none, when shut down cleanly)."""
    deadline = time.monotonic() + timeout
    while (left := _processes_using(path)) and time.monotonic() < deadline:
        time.sleep(0.25)
    return left


def _interrupt(proc, tmp_path, run=1):
    proc.send_signal(signal.SIGINT)
    assert proc.wait(60) == 0, (tmp_path / f"up{run}.log").read_text()[-3000:]


def test_up_serves_everything_and_ctrl_c_stops_everything(tmp_path):
    port = free_tcp_port()
    url = f"http://127.0.0.1:{port}"
    loadgens: list[psutil.Process] = []
    proc = _start(tmp_path, port)
    try:
        _wait_up(proc, tmp_path)
        env = read_env_file(tmp_path / ".e3" / "env")
        assert env["E3_URL"] == url and env["E3_TOKEN"].startswith("e3_")
        assert oct((tmp_path / ".e3" / "env").stat().st_mode & 0o777) == "0o600"
        assert httpx.get(f"{url}/readyz").status_code == 200
        deadline = time.monotonic() + 30
        while not _controller_serving():  # the gRPC controller for agents runs beside the API
            assert time.monotonic() < deadline, "the controller never answered its health check"
            time.sleep(0.25)
        # ... behind its compiled ingest front
        assert "(ingest front)" in (tmp_path / ".e3" / "logs" / "controller.log").read_text()
        # ... and a local cluster of real agents registered with it
        assert "local cluster `local`: 2 e3-agent processes registered" in (tmp_path / "up1.log").read_text()
        # ... running the demo: IOT-TS placed by HCM, under load from two e3-loadgen processes
        assert "demo: iot-ts-demo (42 instances) placed by HCM on `local`" in (tmp_path / "up1.log").read_text()
        loadgens = [c for c in psutil.Process(proc.pid).children() if c.name() == "e3-loadgen"]
        assert len(loadgens) == 2
        headers = {"Authorization": f"Bearer {env['E3_TOKEN']}"}

        def local_nodes():  # a busy machine may delay a heartbeat past 3 periods: the node is briefly suspect
            items = httpx.get(f"{url}/api/v1/clusters/local/nodes", headers=headers).json()["items"]
            return [(n["state"], n["address"]) for n in items]

        wait_until(lambda: local_nodes() == [("up", "127.0.0.1")] * 2, what="both local nodes up")
        assert len([p for p in _processes_using(tmp_path / ".e3") if "e3-agent" in " ".join(p.cmdline())]) == 2
        assert httpx.get(f"{url}/docs").status_code == 200
        assert "E3" in httpx.get(f"{url}/").text
        assert httpx.get(f"{url}/api/v1/local-token").json()["token"] == env["E3_TOKEN"]
        assert httpx.get(f"{url}/api/v1/templates").status_code == 401  # never open by accident
        # The CLI finds .e3/env on its own, and a deployment runs through the embedded worker.
        cli = [sys.executable, "-m", "e3"]
        clean_env = _user_env(port)
        subprocess.run([*cli, "cluster", "create", "--generator", "fattree", "--servers", "3", "--type",
                        "type1-smartnic"], cwd=tmp_path, env=clean_env, check=True, capture_output=True)
        httpx.post(f"{url}/api/v1/templates/iot-ts/instantiate", json={}, headers=headers).raise_for_status()
        export = tmp_path / "iot-ts.yaml"
        subprocess.run([*cli, "export", "iot-ts", "--file", str(export)], cwd=tmp_path, env=clean_env, check=True)
        done = subprocess.run([*cli, "apply", "-f", str(export), "--cluster", "fattree-3-type1-smartnic", "--wait"],
                              cwd=tmp_path, env=clean_env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        # A second `e3 up` while this one runs says so and leaves it alone.
        again = subprocess.run(cli + ["up"], cwd=tmp_path, env=clean_env, capture_output=True, text=True, timeout=60)
        assert again.returncode == 0 and "already running" in again.stdout
        assert _processes_using(tmp_path / ".e3")  # postgres, redis, api, worker, controller, agents running
    finally:
        if proc.poll() is None:
            _interrupt(proc, tmp_path)
    assert _gone(tmp_path / ".e3") == []
    assert not [p for p in loadgens if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not (tmp_path / ".e3" / "up.pid").exists()

    # Re-running is safe: same data, same token.
    token = read_env_file(tmp_path / ".e3" / "env")["E3_TOKEN"]
    proc = _start(tmp_path, port, run=2)
    try:
        _wait_up(proc, tmp_path, run=2)
        assert read_env_file(tmp_path / ".e3" / "env")["E3_TOKEN"] == token
        clusters = httpx.get(f"{url}/api/v1/clusters", headers={"Authorization": f"Bearer {token}"}).json()
        assert sorted(c["name"] for c in clusters["items"]) == ["fattree-3-type1-smartnic", "local"]  # reused
    finally:
        _interrupt(proc, tmp_path, run=2)
    assert _gone(tmp_path / ".e3") == []


def test_e3_up_gives_its_agents_the_controller_list_of_e3_controller_addresses(tmp_path):
    """E3_CONTROLLER_ADDRESSES reaches the agents `e3 up` starts (and `.e3/env`, for `e3 cluster up`): with a first
    address nobody listens on, each agent still registers, at the controller `e3 up` started."""
    port = free_tcp_port()
    nobody = f"127.0.0.1:{free_tcp_port()}"
    addresses = f"{nobody},127.0.0.1:{CONTROLLER_PORT}"
    proc = _start(tmp_path, port, E3_CONTROLLER_ADDRESSES=addresses, E3_DEMO_RATE="0")
    try:
        _wait_up(proc, tmp_path)
        assert f"agents connect to the controllers at {addresses}" in (tmp_path / "up1.log").read_text()
        env = read_env_file(tmp_path / ".e3" / "env")
        assert env["E3_CONTROLLER"] == addresses
        headers = {"Authorization": f"Bearer {env['E3_TOKEN']}"}

        def local_nodes():
            items = httpx.get(f"http://127.0.0.1:{port}/api/v1/clusters/local/nodes", headers=headers).json()["items"]
            return [n["state"] for n in items]

        wait_until(lambda: local_nodes() == ["up"] * 2, what="both local nodes up")
        agents = [p for p in _processes_using(tmp_path / ".e3") if "e3-agent" in " ".join(p.cmdline())]
        assert len(agents) == 2 and all(addresses in p.cmdline() for p in agents)
        logs = [log.read_text() for log in (tmp_path / ".e3" / "local-clusters" / "local").glob("*.log")]
        assert len(logs) == 2 and all("registered here (preferred" in log for log in logs)
        assert all(f"controller 127.0.0.1:{CONTROLLER_PORT}: registered here" in log for log in logs)
    finally:
        _interrupt(proc, tmp_path)
    assert _gone(tmp_path / ".e3") == []


def test_e3_controllers_2_starts_two_controllers_the_agents_spread_over_them_and_survive_a_kill_9_of_one(tmp_path):
    """E3_CONTROLLERS=2: two controllers on consecutive ports, both given to the agents, each agent at the one its
    hash prefers (the local cluster's two servers prefer different ones); `kill -9` of one: its agent registers at
    the other, the supervisor starts it again, and no node goes down."""
    port = free_tcp_port()
    ports = [CONTROLLER_PORT, CONTROLLER_PORT + 1]
    addresses = ",".join(f"127.0.0.1:{p}" for p in ports)
    proc = _start(tmp_path, port, E3_CONTROLLERS="2", E3_DEMO_RATE="0")
    try:
        _wait_up(proc, tmp_path)
        assert f"agents connect to the controllers at {addresses}" in (tmp_path / "up1.log").read_text()
        env = read_env_file(tmp_path / ".e3" / "env")
        headers = {"Authorization": f"Bearer {env['E3_TOKEN']}"}

        def get(path, **params):
            return httpx.get(f"http://127.0.0.1:{port}{path}", headers=headers, params=params).json()

        wait_until(lambda: [n["state"] for n in get("/api/v1/clusters/local/nodes")["items"]] == ["up"] * 2,
                   what="both local nodes up")
        logs = sorted((tmp_path / ".e3" / "local-clusters" / "local").glob("*.log"))
        registered = {p for p in ports for log in logs
                      if f"controller 127.0.0.1:{p}: registered here" in log.read_text()}
        assert registered == set(ports)  # each controller runs one agent
        last_event = get("/api/v1/events", last=1)["items"][-1]["id"]
        [second] = [p for p in _processes_using(tmp_path / ".e3")
                    if "controller" in p.cmdline() and str(ports[1]) in p.cmdline()]
        second.kill()
        wait_until(lambda: any(f"moved from 127.0.0.1:{ports[1]}" in log.read_text() for log in logs), timeout=20,
                   what="the killed controller's agent registering at the other")
        wait_until(lambda: "controller-2 restarted" in (tmp_path / "up1.log").read_text(), timeout=30,
                   what="the supervisor starting the second controller again")
        time.sleep(3)  # the killed one's lease (2 s) and the resume grace are over
        assert [n["state"] for n in get("/api/v1/clusters/local/nodes")["items"]] == ["up"] * 2
        kinds = {e["kind"] for e in get("/api/v1/events", since=last_event, limit=1000)["items"]}
        assert not kinds & {"node.down", "node.suspect", "failover.started"}, kinds
    finally:
        _interrupt(proc, tmp_path)
    assert _gone(tmp_path / ".e3") == []


# --- Issue 19 (reliability): shutdown, restart and supervision -----------------------------------------------

def _embedded_server_pids(data_dir) -> dict:
    """The embedded servers' pids, from their pid files (Redis's process title names no path to find it by)."""
    return {name: int((data_dir / pid_file).read_text().split()[0])
            for name, pid_file in (("postgres", "postgres/postmaster.pid"), ("redis", "redis/redis.pid"))}


@pytest.mark.parametrize("stop_with", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_issue19_embedded_postgres_and_redis_do_not_outlive_e3_up(tmp_path, stop_with):
    """SIGTERM stops `e3 up` in order; SIGKILL (the e2e harness's last resort) gives it no chance to, yet
    neither leaves the embedded servers running (within 20 s), nor any other process of its data dir."""
    proc = _start(tmp_path, free_tcp_port(), E3_CLUSTER_MODE="none")
    try:
        _wait_up(proc, tmp_path)
        servers = _embedded_server_pids(tmp_path / ".e3")
        assert all(process_alive(pid) for pid in servers.values()), servers
        proc.send_signal(stop_with)
        assert proc.wait(60) == (0 if stop_with == signal.SIGTERM else -signal.SIGKILL)
        wait_until(lambda: not any(process_alive(pid) for pid in servers.values()), timeout=20,
                   what=f"the embedded servers {servers} gone")
        assert _gone(tmp_path / ".e3") == []  # the API, worker, controller and watchdog too
        # an orderly stop stops them itself; the watchdog only stands in for a killed `e3 up`
        assert ("e3 watchdog" in (tmp_path / "up1.log").read_text()) == (stop_with == signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_issue19_the_next_e3_up_stops_embedded_servers_a_killed_one_left(tmp_path):
    """An `e3 up` killed together with its watchdog leaves the servers running: the next `e3 up` on that data
    dir stops them before it starts its own, and a SIGTERM then stops its own (no handle of the dead one kept)."""
    proc = _start(tmp_path, free_tcp_port(), E3_CLUSTER_MODE="none")
    try:
        _wait_up(proc, tmp_path)
        left = _embedded_server_pids(tmp_path / ".e3")
        watchdog, = [c for c in psutil.Process(proc.pid).children() if "e3.core.embedded_watchdog" in c.cmdline()]
        watchdog.kill()
        proc.kill()
        proc.wait(10)
        assert all(process_alive(pid) for pid in left.values()), left
        proc = _start(tmp_path, free_tcp_port(), run=2, E3_CLUSTER_MODE="none")
        _wait_up(proc, tmp_path, run=2)
        assert not any(process_alive(pid) for pid in left.values())
        assert "stopped embedded servers left by an `e3 up` that was killed" in (tmp_path / "up2.log").read_text()
        servers = _embedded_server_pids(tmp_path / ".e3")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
        wait_until(lambda: not any(process_alive(pid) for pid in servers.values()), timeout=20,
                   what=f"the embedded servers {servers} gone")
        assert _gone(tmp_path / ".e3") == []
        assert "e3 watchdog" not in (tmp_path / "up2.log").read_text()  # `e3 up` stopped them itself
    finally:
        if proc.poll() is None:
            proc.kill()

DEMO = "iot-ts-demo"
DISRUPTIONS = ("node.down", "failover.started", "failover.promoted", "failover.replaced")


def _api(url: str, token: str):
    headers = {"Authorization": f"Bearer {token}"}

    def get(path: str, **params):
        r = httpx.get(f"{url}{path}", headers=headers, params=params, timeout=30)
        assert r.status_code == 200, r.text
        return r.json()

    return get


def _placement(get, deployment_id: str) -> dict:
    """The demo's instances: id -> (DAG node, shard, replica, role, node, state, address, port)."""
    items, offset = [], 0
    while True:
        page = get(f"/api/v1/deployments/{deployment_id}/placement", limit=500, offset=offset)
        items += page["items"]
        offset += len(page["items"])
        if offset >= page["total"]:
            break
    return {i["id"]: (i["dag_node"], i["shard"], i["replica"], i["role"], i["node"], i["state"], i["address"],
                      i["port"]) for i in items}


def _demo_deployment(get) -> str:
    found = [d for d in get("/api/v1/deployments", application=DEMO)["items"]]
    assert len(found) == 1, found
    return found[0]["id"]


def _disruptions(get, since: int) -> list:
    """Node-down and failover events after event `since`: there must be none across an orderly restart."""
    return [(e["kind"], e["data"].get("name")) for e in get("/api/v1/events", since=since, limit=1000)["items"]
            if e["kind"] in DISRUPTIONS]


def _served_since(get, node_ids, since_iso: str) -> dict:
    """Requests each instance completed after `since_iso`, from its node's stored heartbeats."""
    served: dict[str, int] = {}
    for node_id in node_ids:
        for point in get(f"/api/v1/nodes/{node_id}/telemetry", since=since_iso, limit=5000)["items"]:
            for inst in point["instances"]:
                served[inst["instance_id"]] = served.get(inst["instance_id"], 0) + inst["requests"]
    return served


def _loadgen_targets(up_pid: int) -> list[str]:
    targets = []
    for child in psutil.Process(up_pid).children():
        cmd = child.cmdline()
        if cmd and cmd[0].endswith("e3-loadgen"):
            targets.append(cmd[cmd.index("--target") + 1])
    return targets


@pytest.mark.chaos
def test_issue19_item3_an_orderly_stop_and_start_keeps_every_instance_backup_port_and_route(tmp_path):
    from datetime import datetime, timezone

    port = free_tcp_port()
    url = f"http://127.0.0.1:{port}"
    proc = _start(tmp_path, port)
    try:
        _wait_up(proc, tmp_path)
        token = read_env_file(tmp_path / ".e3" / "env")["E3_TOKEN"]
        get = _api(url, token)
        deployment_id = _demo_deployment(get)
        before = _placement(get, deployment_id)
        assert len(before) == 42 and {i[5] for i in before.values()} == {"running"}
        assert any(i[3] == "backup" for i in before.values())
        assert all(i[7] for i in before.values())  # every instance has its port
        last_event = get("/api/v1/events", last=1)["items"][-1]["id"]
    finally:
        started = time.monotonic()
        _interrupt(proc, tmp_path)
        print(f"\nitem 3: orderly stop of `e3 up` took {time.monotonic() - started:.1f} s")
    assert _gone(tmp_path / ".e3") == []
    log1 = (tmp_path / "up1.log").read_text()
    assert log1.count("stopped") <= 1, log1[-3000:]  # one "stopped" at the end, no flood

    started = time.monotonic()
    proc = _start(tmp_path, port, run=2)
    try:
        _wait_up(proc, tmp_path, run=2)
        resumed_at = datetime.now(timezone.utc).isoformat()
        print(f"item 3: `e3 up` again: up with the demo running after {time.monotonic() - started:.1f} s")
        log2 = (tmp_path / "up2.log").read_text()
        assert f"demo: {DEMO} (42 instances) placed by HCM on `local`" in log2, log2[-3000:]
        assert _demo_deployment(get) == deployment_id  # the same deployment, not a new one
        after = _placement(get, deployment_id)
        # every instance, backup, node and port is the one it had, and runs
        assert after == before
        # no node went down and nothing was failed over, neither while stopping nor while starting
        time.sleep(3)  # past the membership check's first rounds
        assert _disruptions(get, last_event) == []
        # the demo's load resumed against real targets, through the routes: the gateway's requests reach sql
        targets = _loadgen_targets(proc.pid)
        assert len(targets) == 2 and all("None" not in t for t in targets), targets
        nodes = {i[4] for i in after.values()}
        node_ids = [n["id"] for n in get("/api/v1/clusters/local/nodes")["items"] if n["name"] in nodes]

        def served():
            counts = _served_since(get, node_ids, resumed_at)
            by_dag = {}
            for inst_id, (dag_node, *_rest) in after.items():
                by_dag[dag_node] = by_dag.get(dag_node, 0) + counts.get(inst_id, 0)
            return by_dag if all(by_dag.get(d, 0) > 0 for d in ("api", "sql", "ema")) else None

        by_dag = wait_until(served, timeout=60, what="the demo's requests served by api, sql and ema after restart")
        print(f"item 3: requests served per DAG node in the first seconds after restart: {by_dag}")
        assert "demo load" not in log2  # no load round stopped
    finally:
        _interrupt(proc, tmp_path, run=2)
    assert _gone(tmp_path / ".e3") == []


def _roles(up_pid: int, data_dir) -> dict:
    """pid of each process `e3 up` runs: api, worker, controller, redis, postgres, and agent:<node>."""
    roles = {}
    for child in psutil.Process(up_pid).children():
        try:
            cmd = child.cmdline()
        except psutil.NoSuchProcess:
            continue
        if not cmd or child.status() == psutil.STATUS_ZOMBIE:
            continue
        if "redis-server" in cmd[0]:
            roles["redis"] = child.pid
        elif cmd[0].endswith("e3-agent"):
            roles[f"agent:{cmd[cmd.index('--node') + 1]}"] = child.pid
        elif cmd[1:3] == ["-m", "e3"] and cmd[3] in ("api", "worker", "controller"):
            roles[cmd[3]] = child.pid
    roles["postgres"] = int((data_dir / "postgres" / "postmaster.pid").read_text().split()[0])
    return roles


def _redis_answers(data_dir) -> bool:
    import re

    import redis

    conf = (data_dir / "redis" / "redis.conf").read_text()
    port, password = re.search(r"^port (\d+)$", conf, re.M).group(1), re.search(r"^requirepass (\S+)$", conf, re.M).group(1)
    try:
        return redis.Redis(port=int(port), password=password, socket_timeout=1).ping()
    except redis.RedisError:
        return False


@pytest.mark.chaos
def test_issue19_item7_a_crashed_controller_api_worker_or_redis_is_restarted_alone(tmp_path):
    port = free_tcp_port()
    url = f"http://127.0.0.1:{port}"
    data_dir = tmp_path / ".e3"
    proc = _start(tmp_path, port)
    try:
        _wait_up(proc, tmp_path)
        token = read_env_file(data_dir / "env")["E3_TOKEN"]
        get = _api(url, token)
        headers = {"Authorization": f"Bearer {token}"}
        deployment_id = _demo_deployment(get)
        placement = _placement(get, deployment_id)
        last_event = get("/api/v1/events", last=1)["items"][-1]["id"]
        worker_log = data_dir / "logs" / "worker.log"

        def readyz() -> bool:
            try:
                return httpx.get(f"{url}/readyz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        ready = {"controller": _controller_serving, "api": readyz,
                 "worker": lambda: worker_log.read_bytes().count(b" ready.") >= 2 + restarted_workers,
                 "redis": lambda: _redis_answers(data_dir)}
        restarted_workers = 0
        for role in ("controller", "api", "worker", "redis"):
            before = _roles(proc.pid, data_dir)
            os.kill(before[role], signal.SIGKILL)
            killed = time.monotonic()
            wait_until(lambda: _roles(proc.pid, data_dir).get(role) not in (None, before[role]), timeout=60,
                       what=f"a new {role} process")
            wait_until(ready[role], timeout=60, what=f"the new {role} serving")
            print(f"\nitem 7: kill -9 of the {role}: a new one serving {time.monotonic() - killed:.1f} s later")
            if role == "worker":
                restarted_workers += 1
            after = _roles(proc.pid, data_dir)
            assert {k: v for k, v in after.items() if k != role} == {k: v for k, v in before.items() if k != role}
            restarted = wait_until(lambda: [e for e in get("/api/v1/events", kind="process.restarted",
                                                           subject=f"process/{role}")["items"]
                                            if e["data"]["pid"] == after[role]], timeout=30,
                                   what=f"the {role}'s restart in the event log")
            exited = get("/api/v1/events", kind="process.exited", subject=f"process/{role}")["items"]
            assert exited[-1]["data"]["exit_code"] == -signal.SIGKILL and restarted[0]["data"]["down_s"] >= 0
        # The cluster and the demo were not touched: no node down, no failover, the same instances running.
        wait_until(lambda: {n["state"] for n in get("/api/v1/clusters/local/nodes")["items"]} == {"up"}, timeout=30,
                   what="both nodes up")
        assert _disruptions(get, last_event) == []
        assert _placement(get, deployment_id) == placement

        # A job queued before Redis dies is still queued when it comes back, and runs: the worker is held
        # (SIGSTOP) so the job waits in Redis, Redis is killed after its append-only file took the job.
        httpx.post(f"{url}/api/v1/clusters", headers=headers, json={"generator": "fattree", "servers": 3,
                                                                    "server_type": "type1-smartnic",
                                                                    "name": "queued"}).raise_for_status()
        httpx.post(f"{url}/api/v1/templates/iot-ts/instantiate", headers=headers, json={}).raise_for_status()
        roles = _roles(proc.pid, data_dir)
        os.killpg(roles["worker"], signal.SIGSTOP)
        time.sleep(2)  # a blocking read of the queue it sent before (1 s) could still take the job
        try:
            accepted = httpx.post(f"{url}/api/v1/deployments", headers=headers, timeout=30,
                                  json={"application": "iot-ts", "cluster": "queued"})
            assert accepted.status_code == 202, accepted.text
            job_url = f"{url}/api/v1/jobs/{accepted.json()['job_id']}"
            assert httpx.get(job_url, headers=headers).json()["state"] == "queued"
            time.sleep(1.5)  # the append-only file is written every second
            os.kill(roles["redis"], signal.SIGKILL)
            killed = time.monotonic()
            wait_until(lambda: _roles(proc.pid, data_dir).get("redis") not in (None, roles["redis"]) and
                       _redis_answers(data_dir), timeout=60, what="Redis restarted")
            print(f"item 7: kill -9 of Redis (a job queued): Redis answering again {time.monotonic() - killed:.1f} s later")
        finally:
            os.killpg(roles["worker"], signal.SIGCONT)
        job = wait_until(lambda: (j := httpx.get(job_url, headers=headers).json())["state"] in ("succeeded", "failed")
                         and j, timeout=90, what="the queued job run after the Redis restart")
        print(f"item 7: the job queued before Redis died ran {time.monotonic() - killed:.1f} s after the kill")
        assert job["state"] == "succeeded", job
        assert _roles(proc.pid, data_dir)["worker"] == roles["worker"]
    finally:
        if proc.poll() is None:
            _interrupt(proc, tmp_path)
    assert _gone(data_dir) == []


def test_issue19_item3_a_demo_load_without_a_target_is_refused_and_a_failed_round_said_once(tmp_path, capsys):
    from e3.client.api import ClientError
    from e3.cli.up import LoadRound
    from e3.emulation import demo
    from e3.emulation.binaries import loadgen_binary

    undeployed = [{"id": "i-1", "dag_node": "api", "role": "primary", "state": "running", "address": None,
                   "port": None}]
    with pytest.raises(ClientError, match="no address and port"):
        demo.load_argv(demo.LOADS[0], undeployed, 100.0)  # never `--target None`
    failing = LoadRound("readings", [str(loadgen_binary()), "--target", "nowhere"], tmp_path / "load.log")
    failing.keep_running()
    failing.proc.wait(10)
    assert failing.proc.returncode != 0
    for _ in range(20):  # `e3 up` calls it every loop
        failing.keep_running()
    assert capsys.readouterr().out.count("demo load `readings` stopped") == 1


def test_e3_up_runs_its_controllers_behind_the_front_when_it_is_built_and_says_so_when_not(tmp_path, monkeypatch,
                                                                                         capsys):
    from e3.cli.up import front_env

    monkeypatch.delenv("E3_INGEST_FRONT", raising=False)
    monkeypatch.setenv("E3_INGEST_BIN", str(REPO_ROOT / "build/agents/e3-ingest/e3-ingest"))
    assert front_env() == {"E3_INGEST_FRONT": "1"}
    monkeypatch.setenv("E3_INGEST_BIN", str(tmp_path / "e3-ingest"))  # not built
    assert front_env() == {}
    assert "no ingest front" in capsys.readouterr().out
    monkeypatch.setenv("E3_INGEST_FRONT", "0")  # the user's choice, whatever is built
    assert front_env() == {}
