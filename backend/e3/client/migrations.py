"""Following a migration on the API until it ends."""

import time
from collections.abc import Callable

from e3.client.api import Api, ClientError

ENDED = ("succeeded", "rolled_back", "failed")


def wait_for_migration(api: Api, migration_id: str, timeout_s: float,
                       on_step: Callable[[dict], None] | None = None, interval: float = 0.1) -> dict:
    """Poll a migration until it ends; `on_step(step)` once for each step as it finishes (done or failed).
    ClientError when `timeout_s` passes first."""
    deadline, seen = time.monotonic() + timeout_s, set()
    while True:
        m = api.get(f"/api/v1/migrations/{migration_id}")
        for step in m["steps"]:
            if on_step is not None and step["state"] in ("done", "failed") and step["name"] not in seen:
                seen.add(step["name"])
                on_step(step)
        if m["state"] in ENDED:
            return m
        if time.monotonic() > deadline:
            raise ClientError(f"migration {migration_id} is still {m['state']} (step {m['step']}) after "
                              f"{timeout_s:.0f} s; follow it with `e3 get migrations`")
        time.sleep(interval)
