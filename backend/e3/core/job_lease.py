"""A running job's lease in Redis: held by the worker process that runs it, so that a job whose worker is
gone can be told from one that is still being worked on (services.job_reaper, deployment cancellation).

The worker sets `e3:job-lease:<job id>` before the job is marked running and refreshes it every REFRESH_S
from a thread of its own while the task runs; the key expires TTL_S after the last refresh. So a worker
killed by any means (kill -9 of Celery's main process, a machine gone) leaves no lease within TTL_S, while a
worker that merely computes for a long time keeps it. Redis persists it like the queue (append-only file):
a restarted Redis gives it back, and a lease it lost is set again at the next refresh.
"""

import logging
import os
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import redis

from e3.core.config import get_settings

log = logging.getLogger(__name__)
KEY = "e3:job-lease:{}"
TTL_S = 10
REFRESH_S = 2.0


def _client() -> redis.Redis:
    return redis.Redis.from_url(get_settings().redis_url or "redis://127.0.0.1:6379/0", socket_timeout=5,
                                socket_connect_timeout=5)


@contextmanager
def held(job_id: object) -> Iterator[None]:
    """Hold job `job_id`'s lease while the block runs (set before the block; a Redis that cannot take it within
    TTL_S raises)."""
    client, key = _client(), KEY.format(job_id)
    holder = f"{socket.gethostname()}:{os.getpid()}"
    deadline = time.monotonic() + TTL_S
    while True:  # Redis may be restarting (it just handed us the task): a supervised one is back within seconds
        try:
            client.set(key, holder, ex=TTL_S)
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    done = threading.Event()

    def refresh() -> None:
        while not done.wait(REFRESH_S):
            try:
                client.set(key, holder, ex=TTL_S)
            except redis.RedisError as exc:  # Redis restarting: the next refresh sets it again
                log.warning("refreshing the lease of job %s: %s", job_id, exc)

    thread = threading.Thread(target=refresh, name=f"lease-{job_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        try:
            client.delete(key)
        except redis.RedisError:  # it expires on its own
            pass
        client.close()


def leased(job_ids: Iterable[object]) -> set[str]:
    """The ids (as strings) among `job_ids` whose lease is held now. Raises redis.RedisError when Redis does
    not answer: then nobody can tell, and nothing must be judged orphaned."""
    ids = [str(j) for j in job_ids]
    if not ids:
        return set()
    client = _client()
    try:
        values = client.mget([KEY.format(i) for i in ids])
    finally:
        client.close()
    return {i for i, value in zip(ids, values) if value is not None}
