"""The folder prometheus_client's multiprocess mode shares between `e3 api`'s processes (E3_API_WORKERS).

Each uvicorn worker writes its HTTP request durations into files of its own there; /metrics, whichever process
answers it, sums them all, so the figures cover every process. A folder per run of `e3 api`, made before any
worker starts (prometheus_client picks its mode when first imported, from PROMETHEUS_MULTIPROC_DIR) and removed
when `e3 api` ends: counts from an earlier run never leak in (Prometheus reads the restart as a counter reset).
This module must not import prometheus_client.
"""

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

ENV = "PROMETHEUS_MULTIPROC_DIR"


@contextmanager
def per_run_directory() -> Iterator[str]:
    path = tempfile.mkdtemp(prefix="e3-api-metrics-")
    previous = os.environ.get(ENV)
    os.environ[ENV] = path
    try:
        yield path
    finally:
        if previous is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = previous
        shutil.rmtree(path, ignore_errors=True)
