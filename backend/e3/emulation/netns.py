"""A thin wrapper around the `ip` (iproute2) and `sysctl` commands, in the root or a named namespace.

Every failing command raises NetnsError naming the command line and its stderr.
"""

import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

COMMAND_TIMEOUT_S = 30.0
KILL_TIMEOUT_S = 5.0


class NetnsError(RuntimeError):
    """An `ip`/`sysctl` command failed, or network namespaces cannot be used here."""


def run(argv: list[str]) -> str:
    """Run a command; return its stdout, raise NetnsError with the command line and stderr on failure."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NetnsError(f"`{shlex.join(argv)}` could not run: {exc}") from exc
    if done.returncode != 0:
        detail = done.stderr.strip() or done.stdout.strip() or "no output"
        raise NetnsError(f"`{shlex.join(argv)}` failed (exit {done.returncode}): {detail}")
    return done.stdout


def exec_argv(ns: str | None, argv: list[str]) -> list[str]:
    """The command line that runs `argv` inside namespace `ns` (unchanged for the root namespace, None)."""
    return list(argv) if ns is None else ["ip", "netns", "exec", ns, *argv]


def ip(*args: str, ns: str | None = None) -> str:
    """Run `ip [-n ns] args...`; return its stdout."""
    return run(["ip", *(["-n", ns] if ns else []), *args])


def ip_json(*args: str, ns: str | None = None) -> list[dict[str, Any]]:
    """Run `ip [-n ns] -j args...`; return its parsed JSON (an empty list when it prints nothing)."""
    out = ip("-j", *args, ns=ns).strip()
    return json.loads(out) if out else []


def sysctl(settings: dict[str, str | int], ns: str | None = None) -> None:
    """Set kernel parameters (`sysctl -w key=value ...`) in the root or a named namespace."""
    run(exec_argv(ns, ["sysctl", "-q", "-w", *(f"{k}={v}" for k, v in settings.items())]))


def list_netns() -> list[str]:
    """Names of the existing named network namespaces."""
    return [entry["name"] for entry in ip_json("netns", "list")]


def netns_exists(name: str) -> bool:
    """True if the named network namespace exists."""
    return name in list_netns()


def add_netns(name: str) -> None:
    """Create a named network namespace with its loopback up."""
    ip("netns", "add", name)
    ip("link", "set", "dev", "lo", "up", ns=name)


def netns_pids(name: str) -> list[int]:
    """Pids of the processes running in the named network namespace."""
    return [int(pid) for pid in ip("netns", "pids", name).split()]


def _alive(pid: int) -> bool:
    """True if the process exists and is not a zombie (a zombie only waits for its parent to reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def stop_processes(pids: list[int], timeout_s: float = KILL_TIMEOUT_S) -> None:
    """Stop processes by pid: SIGTERM, then SIGKILL to those still alive after `timeout_s`."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout_s
        while (pids := [p for p in pids if _alive(p)]) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not pids:
            return
    raise NetnsError(f"processes {pids} survived SIGKILL")


def delete_netns(name: str) -> None:
    """Stop the processes in a named namespace and delete it (nothing if it does not exist)."""
    if netns_exists(name):
        stop_processes(netns_pids(name))
        ip("netns", "del", name)


def link_exists(ifname: str, ns: str | None = None) -> bool:
    """True if the interface exists in the root or named namespace."""
    try:
        ip("link", "show", "dev", ifname, ns=ns)
    except NetnsError as exc:
        if "does not exist" in str(exc):
            return False
        raise
    return True


def delete_link(ifname: str, ns: str | None = None) -> None:
    """Delete an interface (and a veth's peer) if it exists."""
    if link_exists(ifname, ns=ns):
        ip("link", "del", "dev", ifname, ns=ns)


def routes(prefix: str, ns: str | None = None) -> list[dict[str, Any]]:
    """The IPv4 routes of exactly `prefix` in the main table of the root or named namespace."""
    return ip_json("-4", "route", "show", "exact", prefix, ns=ns)


def netns_supported() -> str | None:
    """None if this process can create network namespaces, else why not (not root, no `ip`, ...)."""
    if os.geteuid() != 0:
        return "network namespaces need root (run as root, e.g. with sudo)"
    for tool in ("ip", "sysctl"):
        if shutil.which(tool) is None:
            return f"`{tool}` not found (install iproute2 and procps)"
    probe = f"e3-probe-{os.getpid()}"
    try:
        add_netns(probe)
    except NetnsError as exc:
        return f"cannot create a network namespace: {exc}"
    finally:
        try:
            if netns_exists(probe):
                ip("netns", "del", probe)
        except NetnsError:
            pass
    return None
