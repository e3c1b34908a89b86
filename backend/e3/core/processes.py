"""Child processes started by the CLI: tied to their parent's life, waited for until they register."""

import ctypes
import signal
import subprocess
import time
from pathlib import Path


def die_with_parent() -> None:
    """preexec_fn: the child gets SIGTERM if its parent dies, even by SIGKILL (Linux PR_SET_PDEATHSIG)."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


def wait_registered(proc: subprocess.Popen, log: Path, deadline: float, what: str = "the agent",
                    marker: str = "e3-agent: registered") -> str:
    """The line of `log` starting with `marker` (an agent's `<program>: registered ...`), once printed;
    RuntimeError (with the log's tail) if the process exits first or `deadline` (monotonic) passes."""
    while True:
        text = log.read_text(errors="replace") if log.is_file() else ""
        line = next((line for line in text.splitlines() if line.startswith(marker)), None)
        if line:
            return line
        if proc.poll() is not None or time.monotonic() > deadline:
            why = f"exited with code {proc.returncode}" if proc.poll() is not None else "did not register in time"
            raise RuntimeError(f"{what} {why}; its log ({log}):\n{text[-2000:]}")
        time.sleep(0.1)
