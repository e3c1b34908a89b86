"""Where an experiment ran (the machine, the commit) and whether it can run here at all (its `needs`)."""

import os
import platform
import subprocess
import sys
from pathlib import Path

import psutil

REPO_ROOT = Path(__file__).resolve().parents[3]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """What the figures were measured on: a timing on 2 shared cores is not one on 64 idle ones."""
    return {"cores": os.cpu_count(), "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "cpu_model": _cpu_model(), "os": platform.platform(), "python": sys.version.split()[0]}


def git_commit() -> str | None:
    """The checkout's commit, with `-dirty` when it has uncommitted changes; None outside a git checkout."""
    try:
        commit = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("-dirty" if dirty else "")


def _rack_unavailable() -> str | None:
    # Decided as the emulated-rack tests decide (network namespaces), plus the C programs the rack runs.
    from e3.client.api import ClientError
    from e3.emulation import binaries, netns

    reason = netns.netns_supported()
    if reason:
        return f"the emulated rack is unavailable: {reason}"
    try:
        binaries.agent_binary(), binaries.nic_binary(), binaries.loadgen_binary()
    except ClientError as exc:
        return f"the emulated rack is unavailable: {exc.message}"
    return None


def unmet_need(needs: frozenset[str]) -> str | None:
    """Why an experiment needing `needs` cannot run here, or None when it can."""
    unknown = sorted(needs - {"root", "rack"})
    if unknown:
        return f"unknown need(s): {', '.join(unknown)}"
    if "root" in needs and os.geteuid() != 0:
        return "needs root (run as root, e.g. with sudo)"
    if "rack" in needs:
        return _rack_unavailable()
    return None
