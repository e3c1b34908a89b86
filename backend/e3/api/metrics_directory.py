"""The folder prometheus_client's multiprocess mode shares between `e3 api`'s processes (E3_API_WORKERS).

Each uvicorn worker writes its HTTP request durations into files of its own there; /metrics, whichever process
answers it, sums them all, so the figures cover every process. A folder per run of `e3 api`, made before any
worker starts (prometheus_client picks its mode when first imported, from PROMETHEUS_MULTIPROC_DIR) and removed
when `e3 api` ends: counts from an earlier run never leak in (Prometheus reads the restart as a counter reset).

Removed on a normal return, on SIGTERM (uvicorn re-raises the signal once it has shut down, after restoring the
handler found here: the folder goes, then the signal takes its default course), and, for a run that was
killed outright, by the next `e3 api` (the folder's name holds its process id). This module must not import
prometheus_client.
"""

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

ENV = "PROMETHEUS_MULTIPROC_DIR"
PREFIX = "e3-api-metrics-"


def sweep_leftovers(root: Path | None = None) -> list[Path]:
    """Remove the folders of runs whose process is gone; returns them."""
    removed = []
    for path in Path(root or tempfile.gettempdir()).glob(f"{PREFIX}*"):
        pid = path.name[len(PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not psutil.pid_exists(int(pid)):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


@contextmanager
def per_run_directory() -> Iterator[str]:
    sweep_leftovers()
    path = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
    previous_env, previous_handler = os.environ.get(ENV), signal.getsignal(signal.SIGTERM)

    def terminated(signum, frame):
        shutil.rmtree(path, ignore_errors=True)
        signal.signal(signum, previous_handler)
        signal.raise_signal(signum)

    os.environ[ENV] = path
    signal.signal(signal.SIGTERM, terminated)
    try:
        yield path
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
        if previous_env is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = previous_env
        shutil.rmtree(path, ignore_errors=True)
