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
from helpers import wait_until

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


def _start(tmp_path, port, run=1):
    env = _user_env(port)
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
