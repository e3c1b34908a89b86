"""Embedded servers that do not outlive the `e3 up` that started them, even one killed with SIGKILL.

Neither server dies with `e3 up` on its own: pgserver starts PostgreSQL through `pg_ctl`, which detaches
it (it is not our child, so no parent-death signal and no exit handler of ours reaches it), and the
embedded Redis runs in a session of its own (so a Ctrl-C reaches `e3 up` first, which stops it last).
An `e3 up` that is killed (the e2e harness SIGKILLs one that has not stopped within 60 s) used to leave
both running. So `e3 up` starts this watchdog first: a small process reading a pipe whose write end only
`e3 up` holds. The kernel closes that end when `e3 up` exits, however it exits; the watchdog reads
end-of-file and stops what is left of the servers of the data dir: Postgres by a fast shutdown (SIGINT:
sessions ended, data checkpointed), Redis by SIGTERM (it writes its append-only file), SIGKILL for any
still there after STOP_TIMEOUT_S. After an orderly stop nothing is left and it just exits.

A watchdog killed along with `e3 up` (e.g. a kill of every process) leaves the servers to the next
`e3 up` on that data dir, which calls `stop_leftovers()` before it starts its own.
"""

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

STOP_TIMEOUT_S = 10.0


def _server_of(pid_file: Path, name: str) -> psutil.Process | None:
    """The process named `name` whose pid is the first line of `pid_file`, if it runs; a process started
    after the file was written is another that got the same pid, not the server."""
    try:
        pid = int(pid_file.read_text().split()[0])
        written = pid_file.stat().st_mtime
        proc = psutil.Process(pid)
        if proc.name() == name and proc.status() != psutil.STATUS_ZOMBIE and proc.create_time() <= written + 1:
            return proc
    except (OSError, ValueError, IndexError, psutil.Error):
        pass
    return None


def leftover_servers(postgres_dir: Path | None, redis_dir: Path | None) -> list[tuple[psutil.Process, int]]:
    """The embedded servers still running on these data dirs, each with the signal that stops it cleanly."""
    found = []
    if postgres_dir is not None and (proc := _server_of(postgres_dir / "postmaster.pid", "postgres")):
        found.append((proc, signal.SIGINT))  # fast shutdown; SIGTERM would wait for every session to end
    if redis_dir is not None and (proc := _server_of(redis_dir / "redis.pid", "redis-server")):
        found.append((proc, signal.SIGTERM))
    return found


def stop_leftovers(postgres_dir: Path | None, redis_dir: Path | None, timeout: float = STOP_TIMEOUT_S) -> list[int]:
    """Stop the embedded servers still running on these data dirs; return their pids (none: nothing was left)."""
    servers = leftover_servers(postgres_dir, redis_dir)
    for proc, signum in servers:
        try:
            proc.send_signal(signum)
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs([proc for proc, _ in servers], timeout=timeout)
    for proc in alive:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=timeout)
    return [proc.pid for proc, _ in servers]


def start(postgres_dir: Path | None, redis_dir: Path | None) -> subprocess.Popen:
    """The watchdog of these data dirs, for the calling process: it acts once this process has exited
    (or closed the returned Popen's stdin)."""
    argv = [sys.executable, "-m", "e3.core.embedded_watchdog"]
    argv += ["--postgres", str(postgres_dir)] if postgres_dir else []
    argv += ["--redis", str(redis_dir)] if redis_dir else []
    # A session of its own: a Ctrl-C in the terminal must not end it before `e3 up` has stopped.
    return subprocess.Popen(argv, stdin=subprocess.PIPE, start_new_session=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", type=Path)
    parser.add_argument("--redis", type=Path)
    args = parser.parse_args()
    while sys.stdin.buffer.read(4096):  # nothing is ever written: end-of-file is the parent gone
        pass
    started = time.monotonic()
    stopped = stop_leftovers(args.postgres, args.redis)
    if stopped:
        print(f"e3 watchdog (pid {os.getpid()}): the process that started the embedded servers exited without "
              f"stopping them; stopped {stopped} in {time.monotonic() - started:.1f}s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
