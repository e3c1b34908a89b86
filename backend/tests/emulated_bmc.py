"""The emulated BMC (e3.emulation.bmc_sim) as a process for a test, and private (0600) files for credentials."""

import os
import subprocess
import sys
from pathlib import Path

from e3.core.embedded import free_tcp_port


def private_file(path: Path, text: str) -> Path:
    path.write_text(text)
    os.chmod(path, 0o600)
    return path


def start_bmc(folder: Path, watts: int) -> tuple[subprocess.Popen, dict]:
    """A BMC on a free loopback port, user admin, password secret, answering `watts` (its watts file)."""
    port = free_tcp_port()  # a TCP port free now: its UDP twin is all but surely free on loopback
    creds = private_file(folder / "bmc-side.cred", "admin\nsecret\n")
    watts_file = folder / "watts"
    watts_file.write_text(f"{watts}\n")
    proc = subprocess.Popen([sys.executable, "-m", "e3.emulation.bmc_sim", "--port", str(port), "--credentials-file",
                             str(creds), "--watts-file", str(watts_file)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    assert b"listening" in proc.stdout.readline()
    return proc, dict(port=port, creds=creds, watts=watts_file, dir=folder)


def stop_bmc(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(10)
