"""`e3 up`'s supervision: a crashed API, worker, controller or embedded Redis is started again, alone.

Each supervised process is checked every loop of `e3 up`. One that exited is recorded (`process.exited`,
with its exit code) and started again after a back-off that doubles from RESTART_DELAY_S up to
MAX_RESTART_DELAY_S while it keeps crashing (reset once it has stayed up STABLE_S); the new process is
recorded too (`process.restarted`, its pid and how long the service was down). Nothing else is touched:
the other processes keep their pids, the cluster's agents keep running, the demo keeps its deployment.
Events go to the event log (the UI's timeline, GET /api/v1/events) when the database answers, and to
`e3 up`'s output always.
"""

import logging
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from e3.core.embedded import EmbeddedRedis
from e3.core.processes import die_with_parent

log = logging.getLogger(__name__)
RESTART_DELAY_S = 0.5
MAX_RESTART_DELAY_S = 30.0
STABLE_S = 60.0


class Child:
    """`python -m e3 ARGS` with its log; `restart_env` (if any) replaces `env` for the starts after the first."""

    def __init__(self, name: str, args: list[str], env: dict, log_path: Path, restart_env: dict | None = None):
        self.name, self.args, self.env, self.log_path = name, args, env, log_path
        self.restart_env = restart_env or env
        self.proc: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def start(self, again: bool = False) -> None:
        with self.log_path.open("ab") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "e3", *self.args],
                                         env=self.restart_env if again else self.env, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True,
                                         preexec_fn=die_with_parent)  # no orphan outlives `e3 up`

    def exit_code(self) -> int | None:
        """None while it runs; its exit code (negative: the signal) once it exited."""
        return self.proc.poll() if self.proc else None

    def terminate(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()

    def wait(self, timeout: float = 30.0) -> None:
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class RedisChild:
    """The embedded Redis as a supervised process: started again on its port, with its password and data."""

    name = "redis"

    def __init__(self, redis: EmbeddedRedis):
        self.redis = redis

    @property
    def pid(self) -> int | None:
        return self.redis.pid

    def start(self, again: bool = False) -> None:
        self.redis.kill()  # reap the dead one
        self.redis.start()

    def exit_code(self) -> int | None:
        return self.redis.exit_code()


class Supervisor:
    """Restarts what exited, with back-off; `record(kind, name, data)` writes an event."""

    def __init__(self, record: Callable[[str, str, dict], None], clock: Callable[[], float] = time.monotonic):
        self.record, self.clock = record, clock
        self.children: list = []
        self._state: dict[str, dict] = {}

    def add(self, child) -> None:
        self.children.append(child)
        self._state[child.name] = dict(started=self.clock(), delay=RESTART_DELAY_S, due=None, exited=None,
                                       restarts=0)

    def check(self) -> None:
        """Notice what exited since the last check; start again what is due."""
        now = self.clock()
        for child in self.children:
            state = self._state[child.name]
            if state["due"] is None:
                code = child.exit_code()
                if code is None:
                    continue
                if now - state["started"] >= STABLE_S:
                    state["delay"] = RESTART_DELAY_S  # it ran well for a while: this is a new crash, not a loop
                state.update(due=now + state["delay"], exited=now)
                self.record("process.exited", child.name, dict(pid=child.pid, exit_code=code,
                                                                restart_in_s=round(state["delay"], 3)))
                state["delay"] = min(state["delay"] * 2, MAX_RESTART_DELAY_S)
            if now < state["due"]:
                continue
            try:
                child.start(again=True)
            except Exception as exc:  # e.g. Redis did not answer in time: try again after the next delay
                state["due"] = self.clock() + state["delay"]
                self.record("process.restart_failed", child.name, dict(error=str(exc)[:500]))
                state["delay"] = min(state["delay"] * 2, MAX_RESTART_DELAY_S)
                continue
            state["restarts"] += 1
            self.record("process.restarted", child.name, dict(pid=child.pid, restarts=state["restarts"],
                                                               down_s=round(self.clock() - state["exited"], 3)))
            state.update(due=None, exited=None, started=self.clock())
