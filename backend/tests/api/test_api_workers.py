"""`e3 api` as several processes (E3_API_WORKERS, docs/architecture.md "The API and its database"): each serves
the API, a token revoked through one is refused by the others within a second, and none outlives `e3 api`."""

import os
import re
import signal
import time

import httpx
import psutil

from e3.core.embedded import free_tcp_port
from helpers import start_process, stop_process

WORKERS = 2


def _workers_started(log: bytes) -> bool:
    return len(re.findall(rb"Application startup complete", log)) >= WORKERS


def test_several_api_processes_serve_and_none_outlives_the_api(backing_services, admin_token):
    port = free_tcp_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_process(["api", "--port", str(port)], backing_services, "api-workers.log", _workers_started,
                         E3_API_WORKERS=str(WORKERS))
    try:
        workers = [p for p in psutil.Process(proc.pid).children(recursive=True)
                   if "multiprocessing.resource_tracker" not in " ".join(p.cmdline())]
        assert len(workers) == WORKERS
        admin = {"Authorization": f"Bearer {admin_token}"}
        created = httpx.post(f"{url}/api/v1/tokens", json={"name": "tmp", "scopes": ["read"]}, headers=admin).json()
        reader = {"Authorization": f"Bearer {created['token']}"}
        with httpx.Client(base_url=url, headers=reader) as first, httpx.Client(base_url=url, headers=reader) as second:
            assert first.get("/api/v1/jobs").status_code == 200 and second.get("/api/v1/jobs").status_code == 200
            assert httpx.delete(f"{url}/api/v1/tokens/{created['id']}", headers=admin).status_code == 200
            time.sleep(1.0)  # whichever process each connection reached, it learned of the revocation by now
            assert first.get("/api/v1/jobs").status_code == 401 and second.get("/api/v1/jobs").status_code == 401
        os.kill(proc.pid, signal.SIGKILL)  # not even a chance to stop its workers
        proc.wait()
        gone, alive = psutil.wait_procs(workers, timeout=10)
        assert not alive, f"worker processes outlived `e3 api`: {[p.pid for p in alive]}"
    finally:
        stop_process(proc)
