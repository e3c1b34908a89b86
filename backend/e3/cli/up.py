"""`e3 up`: embedded Postgres/Redis when no URLs are set, migrations, seed, API, worker and controller,
then a cluster (an emulated SmartNIC rack as root, else local agents on loopback) running the IOT-TS
demo under steady load. A crashed API, worker, controller or Redis is started again alone (supervision.py);
Ctrl-C stops all, the controller before the agents (Stack.stop), so an orderly stop fails nothing over."""

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx

from e3.client.api import ClientError
from e3.cli.output import console
from e3.cli.supervision import Child, RedisChild, Supervisor
from e3.core import embedded_watchdog
from e3.core.config import get_settings
from e3.core.embedded import EmbeddedPostgres, EmbeddedRedis


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def _wait_healthy(url: str, api: Child, log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if api.exit_code() is not None:
            raise ClientError(f"the API exited with code {api.exit_code()}; see {log}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise ClientError(f"the API did not become ready within {timeout:.0f}s; see {log}")


class Stack:
    """Everything `e3 up` started. Stopped so that no node is failed over: the demo's load, then the
    controller (its failure detector ends before any agent stops), then the cluster's agents, then the
    API and the worker, then Redis and Postgres, then the watchdog that stops those two if `e3 up` is killed."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.watchdog: subprocess.Popen | None = None
        self.postgres: EmbeddedPostgres | None = None
        self.redis: EmbeddedRedis | None = None
        self.local_cluster: str | None = None  # agents started for it are stopped after the controller
        self.rack: str | None = None  # likewise, the emulated rack (its programs, then its network)
        self.loads: list[LoadRound] = []  # the demo's load generators
        self.bmc: subprocess.Popen | None = None  # the emulated BMC (E3_EMULATED_BMC)
        self.controllers: list[Child] = []  # E3_CONTROLLERS of them
        self.children: list[Child] = []  # the API and the worker

    def stop(self) -> None:
        for load in self.loads:
            load.stop()
        for controller in self.controllers:
            controller.terminate()
        for controller in self.controllers:
            controller.wait()
        if self.bmc is not None:
            self.bmc.terminate()
            self.bmc.wait()
        if self.rack:
            from e3.emulation import rack_cluster

            try:
                rack_cluster.down(self.rack)
            except ClientError as exc:
                console.print(f"taking the rack down: {exc.message}")
        if self.local_cluster:
            from e3.emulation import local_cluster

            try:
                local_cluster.down(self.local_cluster)
            except ClientError as exc:
                console.print(f"stopping the local agents: {exc.message}")
        for child in self.children:
            child.terminate()
        for child in self.children:
            child.wait()
        if self.redis:
            self.redis.stop()
        if self.postgres:
            self.postgres.stop()
        if self.watchdog is not None:  # end-of-file: it finds nothing left to stop, and exits
            self.watchdog.stdin.close()
            self.watchdog.wait()
        (self.data_dir / "up.pid").unlink(missing_ok=True)


LOCAL_CLUSTER = "local"
RACK_CLUSTER = "rack"
SUPERVISION_PERIOD_S = 0.25
# How long a starting controller waits for the agents of nodes that were up before it stopped (E3_RESUME_GRACE_MS)
# before it fails them over: at first start, `e3 up` starts those agents itself once the API is ready (up to
# a minute or two on a busy machine); after a crash of the controller, the agents still run and reconnect within
# their reconnect back-off (at most 5 s) once it is back.
FIRST_RESUME_GRACE_MS = 180_000
RESTART_RESUME_GRACE_MS = 15_000


def _record_process_event(kind: str, name: str, data: dict) -> None:
    """A supervision event (e3/cli/supervision.py): printed, and in the event log when the database answers."""
    from e3.core.db import in_session
    from e3.services import events

    console.print(f"[yellow]{name}[/yellow] {kind.removeprefix('process.')}: "
                  + ", ".join(f"{k} {v}" for k, v in data.items()))
    try:
        in_session(events.emit, kind, f"process/{name}", None, process=name, **data)
    except Exception as exc:  # the event log is not reachable: the line above is the record
        console.print(f"(not in the event log: {exc})")


class LoadRound:
    """One of the demo's load generators, started again each time a round ends (see demo.py)."""

    def __init__(self, name: str, argv: list[str], log: Path):
        self.name, self.argv, self.log = name, argv, log
        self.proc: subprocess.Popen | None = None

    def keep_running(self) -> None:
        """Start it if it is not running; a round that failed stops the load, with a note."""
        from e3.emulation import demo

        if self.proc is not None and self.proc.poll() is None:
            return
        if self.proc is not None and self.proc.returncode != 0 and self.argv:  # said once, not every loop
            console.print(f"[yellow]demo load `{self.name}` stopped[/yellow]: e3-loadgen exited with code "
                          f"{self.proc.returncode}; see {self.log}")
            self.argv = []
        if self.argv:
            self.proc = demo.start_load(self.argv, self.log)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()
        self.argv = []


def _cluster_mode(settings) -> tuple[str | None, str | None]:
    """The cluster `e3 up` starts ("rack", "local" or None) and, when it falls back, why."""
    from e3.emulation import netns
    from e3.emulation.binaries import agent_binary, nic_binary

    if settings.cluster_mode == "none":
        return None, None
    local = "local" if settings.local_servers else None
    if settings.cluster_mode == "local":
        return local, None
    reason = netns.netns_supported()
    if reason is None:
        try:
            nic_binary(), agent_binary()
        except ClientError as exc:
            reason = exc.message
    if reason is None:
        return "rack", None
    if settings.cluster_mode == "rack":
        raise ClientError(f"E3_CLUSTER_MODE=rack, but {reason}")
    return local, f"no emulated rack ({reason}): falling back to --mode local"


def front_env() -> dict[str, str]:
    """E3_INGEST_FRONT=1 for `e3 up`'s controllers when e3-ingest is built (`make up` builds it with the agents);
    without it, a note, and the controllers take the heartbeats themselves. An E3_INGEST_FRONT set by the user wins
    (the controllers' environment is applied after this)."""
    from e3.emulation.binaries import ingest_binary

    if "E3_INGEST_FRONT" in os.environ:
        return {}
    try:
        ingest_binary()
    except ClientError as exc:
        console.print(f"[yellow]no ingest front[/yellow]: {exc.message}; the controllers take the heartbeats "
                      "themselves")
        return {}
    return {"E3_INGEST_FRONT": "1"}


def _controller(index: int, port: int, hosts: str, env: dict, logs: Path, front: dict) -> Child:
    """The index-th of `e3 up`'s controllers: `controller` (log controller.log) for the first, `controller-2`
    (controller-2.log) for the second, ...; `front`: front_env()'s."""
    name = "controller" if index == 0 else f"controller-{index + 1}"
    return Child(name, ["controller", "--host", hosts, "--port", str(port)],
                 {**front, "E3_RESUME_GRACE_MS": str(FIRST_RESUME_GRACE_MS), **env}, logs / f"{name}.log",
                 restart_env={**front, "E3_RESUME_GRACE_MS": str(RESTART_RESUME_GRACE_MS), **env})


def _start_local_cluster(url: str, token: str, controller: str, servers: int) -> str | None:
    """Cluster `local`: `servers` beefy servers, each run by a real e3-agent on loopback. A machine
    without the agent binary still gets the control plane, with a note saying why there is no cluster."""
    from e3.emulation import local_cluster
    from e3.client.api import Api

    try:
        started = local_cluster.up(Api(url, token), LOCAL_CLUSTER, servers, "beefy", 2, controller, attached=True)
    except ClientError as exc:
        console.print(f"[yellow]no local cluster[/yellow]: {exc.message}")
        return None
    console.print(f"local cluster `{LOCAL_CLUSTER}`: {len(started)} e3-agent processes registered "
                  f"(`e3 get nodes --cluster {LOCAL_CLUSTER}`)")
    return LOCAL_CLUSTER


def _start_rack(url: str, token: str, controller: str, servers: int, server_type: str) -> str | None:
    """Cluster `rack`: `servers` emulated SmartNIC servers (e3-nic + e3-agent each) in network
    namespaces. A rack left over by an `e3 up` that was killed is taken down first; one still run by
    another `e3 up` is left alone (no rack here, then)."""
    from e3.emulation import rack_cluster
    from e3.client.api import Api

    if rack_cluster.is_running(RACK_CLUSTER):
        console.print(f"[yellow]no rack[/yellow]: rack `{RACK_CLUSTER}` is already run by another `e3 up` "
                      f"(see {rack_cluster.folder(RACK_CLUSTER)})")
        return None
    if rack_cluster.is_rack(RACK_CLUSTER):
        rack_cluster.down(RACK_CLUSTER)
    console.print(f"starting an emulated rack of {servers} {server_type} servers (EMULATED SmartNICs: DPDK, "
                  "no LiquidIO hardware) ...")
    try:
        started = rack_cluster.up(Api(url, token), RACK_CLUSTER, servers, server_type, controller, attached=True)
    except ClientError as exc:
        console.print(f"[yellow]no rack[/yellow]: {exc.message}")
        return None
    console.print(f"rack `{RACK_CLUSTER}`: {len(started)} programs registered (`e3 get nodes --cluster {RACK_CLUSTER}`)")
    return RACK_CLUSTER


def _start_bmc(stack: Stack, url: str, token: str, cluster: str, folder: Path) -> None:
    """An emulated BMC for the cluster's first server, IPMI first in its power sources; a note if it cannot."""
    from e3.emulation import emulated_bmc
    from e3.client.api import Api

    try:
        stack.bmc, watts = emulated_bmc.start(Api(url, token), cluster, folder)
    except ClientError as exc:
        console.print(f"[yellow]no emulated BMC[/yellow]: {exc.message}")
        return
    console.print(f"emulated BMC (IPMI over LAN) for the first server of `{cluster}`: its nodes' power is its "
                  f"reading, split (`ipmi-split`); write watts, or `silent`, into {watts}")


def _start_demo(stack: Stack, url: str, token: str, cluster: str, rate: float, logs: Path) -> None:
    """IOT-TS placed by HCM on `cluster`, and its steady load; a note instead if it cannot run."""
    from e3.emulation import demo
    from e3.client.api import Api

    try:
        instances = demo.deploy(Api(url, token), cluster)
        argvs = [(load.name, demo.load_argv(load, instances, rate / len(demo.LOADS))) for load in demo.LOADS]
    except ClientError as exc:
        console.print(f"[yellow]no demo[/yellow]: {exc.message}")
        return
    stack.loads = [LoadRound(name, argv, logs / f"load-{name}.log") for name, argv in argvs]
    for load in stack.loads:
        load.keep_running()
    console.print(f"demo: {demo.APPLICATION} ({len(instances)} instances) placed by HCM on `{cluster}`, "
                  f"e3-loadgen sending {rate:g} requests/s")


def run_up() -> None:
    from e3.services.bootstrap import ensure_local_admin_token, prepare_database
    from e3.core.envfile import write_env_file

    settings = get_settings()
    data_dir = settings.data_dir.resolve()
    pid_file = data_dir / "up.pid"
    url = f"http://{settings.api_host}:{settings.api_port}"
    if pid_file.is_file() and _pid_alive(int(pid_file.read_text().strip() or 0)):
        console.print(f"E3 is already running at {url} (pid {pid_file.read_text().strip()}); Ctrl-C that one to stop it")
        return
    data_dir.mkdir(parents=True, exist_ok=True)
    pid_file.write_text(str(os.getpid()))
    stack = Stack(data_dir)
    stopping = False

    def on_signal(signum, frame):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        embedded_dirs = (None if settings.database_url else data_dir / "postgres",
                         None if settings.redis_url else data_dir / "redis")
        if any(embedded_dirs):
            if left := embedded_watchdog.stop_leftovers(*embedded_dirs):
                console.print(f"stopped embedded servers left by an `e3 up` that was killed: pids {left}")
            stack.watchdog = embedded_watchdog.start(*embedded_dirs)
        env = dict(os.environ)
        if not settings.database_url:
            console.print("starting embedded PostgreSQL ...")
            stack.postgres = EmbeddedPostgres(embedded_dirs[0])
            env["DATABASE_URL"] = stack.postgres.start()
        if not settings.redis_url:
            console.print("starting embedded Redis ...")
            stack.redis = EmbeddedRedis(embedded_dirs[1])
            env["REDIS_URL"] = stack.redis.start()
        os.environ.update(DATABASE_URL=env["DATABASE_URL"], REDIS_URL=env["REDIS_URL"])
        get_settings.cache_clear()
        console.print("applying migrations and seeding the catalogue ...")
        prepare_database(env["DATABASE_URL"])
        token = ensure_local_admin_token(settings.env_file)
        env.update(E3_LOCAL_MODE="1", E3_LOCAL_ADMIN_TOKEN=token, E3_DATA_DIR=str(data_dir))
        logs = data_dir / "logs"
        logs.mkdir(exist_ok=True)
        api = Child("api", ["api"], env, logs / "api.log")
        stack.children = [api, Child("worker", ["worker"], env, logs / "worker.log")]
        for child in stack.children:
            child.start()
        mode, note = _cluster_mode(settings)
        controller_hosts = settings.controller_host
        if mode == "rack":  # the rack's namespaces reach the controller over the management bridge
            from e3.emulation.rack_network import NetnsError, RackError, ensure_mgmt_bridge, rack_mgmt_gateway

            try:
                ensure_mgmt_bridge()
                controller_hosts = f"{settings.controller_host},{rack_mgmt_gateway()}"
            except (RackError, NetnsError) as exc:
                mode, note = "local", f"no emulated rack ({exc}): falling back to --mode local"
        if note:
            console.print(f"[yellow]{note}[/yellow]")
        front = front_env()
        stack.controllers = [_controller(i, port, controller_hosts, env, logs, front)
                             for i, port in enumerate(settings.controller_ports)]
        for child in stack.controllers:
            child.start()
        _wait_healthy(url, api, logs / "api.log")
        controller = settings.agent_controllers
        write_env_file(settings.env_file, url, token, controller)
        cluster = None
        if mode == "rack":
            cluster = stack.rack = _start_rack(url, token, controller, settings.rack_servers, settings.rack_type)
            if cluster is None and settings.local_servers:
                console.print("[yellow]falling back to --mode local[/yellow]")
                mode = "local"
        if mode == "local":
            cluster = stack.local_cluster = _start_local_cluster(url, token, controller, settings.local_servers)
        if cluster and settings.emulated_bmc:
            _start_bmc(stack, url, token, cluster, data_dir / "bmc")
        if cluster and settings.demo_rate > 0:
            _start_demo(stack, url, token, cluster, settings.demo_rate, logs)
        console.print(f"\n[bold green]E3 is up[/bold green] at {url}  (API docs: {url}/docs)")
        console.print(f"agents connect to the controller{'s' if ',' in controller else ''} at {controller}")
        console.print(f"E3_URL and an admin E3_TOKEN are in {settings.env_file}; logs in {logs}")
        console.print("Ctrl-C stops everything.")
        supervisor = Supervisor(_record_process_event)
        for child in [*stack.children, *stack.controllers, *([RedisChild(stack.redis)] if stack.redis else [])]:
            supervisor.add(child)
        while not stopping:
            supervisor.check()
            for load in stack.loads:
                load.keep_running()
            time.sleep(SUPERVISION_PERIOD_S)
        console.print("\nstopping ...")
    finally:
        stack.stop()
    console.print("stopped")
