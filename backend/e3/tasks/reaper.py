"""The job reaper in every worker: a thread of the worker's main process sweeps every SWEEP_S (the first
sweep when the worker is ready, so a worker started again after a crash soon fails what its predecessor
left running). Several workers sweeping at once is harmless: each job row is locked while it is judged."""

import logging
import threading

from celery.signals import worker_ready, worker_shutdown
from redis import RedisError

from e3.core import job_lease
from e3.core.db import session_scope
from e3.services.job_reaper import Reaper

log = logging.getLogger(__name__)
SWEEP_S = 5.0
_stop = threading.Event()


def _run() -> None:
    reaper = Reaper()
    while True:
        try:
            with session_scope() as session:
                failed = reaper.sweep(session, job_lease.leased)
            for job_id in failed:
                log.warning("job %s failed: its worker is gone", job_id)
        except RedisError as exc:  # cannot tell who holds a lease: judge nothing this time
            log.warning("job reaper: Redis does not answer (%s); nothing reaped", exc)
        except Exception:
            log.exception("job reaper: sweep failed")
        if _stop.wait(SWEEP_S):
            return


@worker_ready.connect
def _start(**_) -> None:
    threading.Thread(target=_run, name="job-reaper", daemon=True).start()


@worker_shutdown.connect
def _end(**_) -> None:
    _stop.set()
