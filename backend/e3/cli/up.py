"""`e3 up`: embedded Postgres/Redis when no URLs are set, migrations, seed, API, worker and controller; Ctrl-C stops all."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from e3.cli.client import CliError
from e3.cli.output import console
from e3.cli.processes import die_with_parent
from e3.core.config import get_settings
from e3.core.embedded import EmbeddedPostgres, EmbeddedRedis


def _spawn(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    out = log.open("ab")
    return subprocess.Popen([sys.executable, "-m", "e3", *args], env=env, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True, preexec_fn=die_with_parent)  # no orphan outlives `e3 up`


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def _wait_healthy(url: str, api: subprocess.Popen, log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if api.poll() is not None:
            raise CliError(f"the API exited with code {api.returncode}; see {log}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise CliError(f"the API did not become ready within {timeout:.0f}s; see {log}")


class Stack:
    """Everything `e3 up` started, stopped in reverse order."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.postgres: EmbeddedPostgres | None = None
        self.redis: EmbeddedRedis | None = None
        self.local_cluster: str | None = None  # agents started for it are stopped first
        self.children: list[subprocess.Popen] = []

    def stop(self) -> None:
        if self.local_cluster:
            from e3.cli import local_cluster

            try:
                local_cluster.down(self.local_cluster)
            except CliError as exc:
                console.print(f"stopping the local agents: {exc.message}")
        for child in self.children:
            if child.poll() is None:
                child.terminate()
        for child in self.children:
            try:
                child.wait(30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if self.redis:
            self.redis.stop()
        if self.postgres:
            self.postgres.stop()
        (self.data_dir / "up.pid").unlink(missing_ok=True)


LOCAL_CLUSTER = "local"


def _start_local_cluster(url: str, token: str, controller: str, servers: int) -> str | None:
    """Cluster `local`: `servers` beefy servers, each run by a real e3-agent on loopback. A machine
    without the agent binary still gets the control plane, with a note saying why there is no cluster."""
    from e3.cli import local_cluster
    from e3.cli.client import Api

    try:
        started = local_cluster.up(Api(url, token), LOCAL_CLUSTER, servers, "beefy", 2, controller, attached=True)
    except CliError as exc:
        console.print(f"[yellow]no local cluster[/yellow]: {exc.message}")
        return None
    console.print(f"local cluster `{LOCAL_CLUSTER}`: {len(started)} e3-agent processes registered "
                  f"(`e3 get nodes --cluster {LOCAL_CLUSTER}`)")
    return LOCAL_CLUSTER


def run_up() -> None:
    from e3.core.bootstrap import ensure_local_admin_token, prepare_database
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
        env = dict(os.environ)
        if not settings.database_url:
            console.print("starting embedded PostgreSQL ...")
            stack.postgres = EmbeddedPostgres(data_dir / "postgres")
            env["DATABASE_URL"] = stack.postgres.start()
        if not settings.redis_url:
            console.print("starting embedded Redis ...")
            stack.redis = EmbeddedRedis(data_dir / "redis")
            env["REDIS_URL"] = stack.redis.start()
        os.environ.update(DATABASE_URL=env["DATABASE_URL"], REDIS_URL=env["REDIS_URL"])
        get_settings.cache_clear()
        console.print("applying migrations and seeding the catalogue ...")
        prepare_database(env["DATABASE_URL"])
        token = ensure_local_admin_token(settings.env_file)
        env.update(E3_LOCAL_MODE="1", E3_LOCAL_ADMIN_TOKEN=token, E3_DATA_DIR=str(data_dir))
        logs = data_dir / "logs"
        logs.mkdir(exist_ok=True)
        api = _spawn(["api"], env, logs / "api.log")
        stack.children.append(api)
        stack.children.append(_spawn(["worker"], env, logs / "worker.log"))
        stack.children.append(_spawn(["controller"], env, logs / "controller.log"))
        _wait_healthy(url, api, logs / "api.log")
        controller = f"{settings.controller_host}:{settings.controller_port}"
        write_env_file(settings.env_file, url, token, controller)
        if settings.local_servers:
            stack.local_cluster = _start_local_cluster(url, token, controller, settings.local_servers)
        console.print(f"\n[bold green]E3 is up[/bold green] at {url}  (API docs: {url}/docs)")
        console.print(f"agents connect to the controller at {settings.controller_host}:{settings.controller_port}")
        console.print(f"E3_URL and an admin E3_TOKEN are in {settings.env_file}; logs in {logs}")
        console.print("Ctrl-C stops everything.")
        while not stopping:
            for child in stack.children:
                if child.poll() is not None:
                    raise CliError(f"{' '.join(child.args[3:])} exited with code {child.returncode}; see {logs}")
            time.sleep(0.5)
        console.print("\nstopping ...")
    finally:
        stack.stop()
    console.print("stopped")
