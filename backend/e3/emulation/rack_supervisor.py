"""The emulated rack's supervisor: starts every e3-nic and e3-agent of a rack and watches them.

`e3 cluster up --mode rack` builds the network, writes `<dir>/processes.json` (rack_processes'
ProcessSpec list) and runs `python -m e3.emulation.rack_supervisor <dir>`. The supervisor:

1. starts the NICs, waits until each printed its `registered` line (its memif socket then exists),
   then the hosts (their memif links connect to those sockets), and waits for them too;
2. writes its progress to `<dir>/supervisor.json` (atomically): state `starting`, `ready`, `failed`
   (with the error) or `stopped`, and per process its pid, log, registered line and exit code;
3. while running, when an e3-nic exits (crashed or killed), sets its wire ports down in the server
   namespace: the ToR's end loses carrier, as a dead LiquidIO's link would, and the ToR's ECMP route
   (`ignore_routes_with_linkdown`) sends new host connections over the server's remaining NICs;
4. on SIGTERM/SIGINT stops the hosts, then the NICs (SIGTERM, SIGKILL after STOP_TIMEOUT_S), and exits.

It restarts nothing: a dead node is the orchestrator's business (failover), not the rack's.
"""

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from e3.core.processes import die_with_parent, wait_registered
from e3.emulation import netns
from e3.emulation.netns import NetnsError
from e3.emulation.rack_network import write_json
from e3.emulation.rack_processes import ProcessSpec

SPEC_FILE = "processes.json"
STATUS_FILE = "supervisor.json"
START_TIMEOUT_S = 60.0
START_ATTEMPTS = 5  # for a program whose start may fail by chance (ProcessSpec.retry_if)
STOP_TIMEOUT_S = 10.0
POLL_S = 0.05


def load_specs(folder: Path) -> list[ProcessSpec]:
    """The process specs `e3 cluster up` wrote for the supervisor."""
    return [ProcessSpec(**s) for s in json.loads((folder / SPEC_FILE).read_text())]


def write_specs(folder: Path, specs: list[ProcessSpec]) -> None:
    """Write the process specs for a supervisor to start in `folder`."""
    write_json(folder / SPEC_FILE, [asdict(s) for s in specs])


def load_status(folder: Path) -> dict[str, Any] | None:
    """The supervisor's status (see the module's doc), or None before it wrote any."""
    try:
        return json.loads((folder / STATUS_FILE).read_text())
    except FileNotFoundError:
        return None


class Supervisor:
    def __init__(self, folder: Path):
        self.folder = folder
        self.specs = load_specs(folder)
        self.procs: dict[str, subprocess.Popen] = {}
        self.status: dict[str, Any] = {"pid": os.getpid(), "state": "starting", "error": None,
                                       "processes": [self._entry(s) for s in self.specs]}
        self.stopping = False

    @staticmethod
    def _entry(spec: ProcessSpec) -> dict[str, Any]:
        return {"kind": spec.kind, "node": spec.node, "log": spec.log, "pid": None, "registered": None,
                "exit_code": None}

    def _save(self) -> None:
        write_json(self.folder / STATUS_FILE, self.status)

    def _start(self, index: int) -> subprocess.Popen:
        spec = self.specs[index]
        with open(spec.log, "wb") as out:
            proc = subprocess.Popen(spec.argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, preexec_fn=die_with_parent)
        self.procs[spec.node] = proc
        self.status["processes"][index]["pid"] = proc.pid
        self._save()
        return proc

    def _start_group(self, kind: str) -> None:
        """Start every process of `kind`, then wait until each registered."""
        group = [i for i, s in enumerate(self.specs) if s.kind == kind]
        for i in group:
            self._start(i)
        deadline = time.monotonic() + START_TIMEOUT_S
        for i in group:
            spec = self.specs[i]
            for attempt in range(1, START_ATTEMPTS + 1):
                try:
                    line = wait_registered(self.procs[spec.node], Path(spec.log), deadline,
                                           f"{spec.kind} {spec.node}", spec.registered)
                    break
                except RuntimeError as exc:
                    if not (spec.retry_if and spec.retry_if in str(exc)) or attempt == START_ATTEMPTS:
                        raise
                    print(f"rack: {spec.node} failed to start ({spec.retry_if}); starting it again", flush=True)
                    self._start(i)  # a new pid
            self.status["processes"][i]["registered"] = line[len(spec.registered):].strip()
            self._save()
            if self.stopping:
                raise RuntimeError("stopped while starting")

    def _link_down(self, spec: ProcessSpec) -> None:
        """A dead NIC's wire ports go down (the ToR's ends lose carrier)."""
        for ifname in spec.wire_ifnames:
            try:
                netns.ip("link", "set", "dev", ifname, "down", ns=spec.ns)
            except NetnsError as exc:
                print(f"rack: cannot set {spec.ns}/{ifname} down: {exc}", flush=True)

    def _reap(self) -> None:
        for i, spec in enumerate(self.specs):
            proc = self.procs.get(spec.node)
            entry = self.status["processes"][i]
            if proc is None or entry["exit_code"] is not None or proc.poll() is None:
                continue
            entry["exit_code"] = proc.returncode
            print(f"rack: {spec.kind} {spec.node} (pid {proc.pid}) exited with code {proc.returncode}", flush=True)
            if spec.kind == "nic":
                self._link_down(spec)
            self._save()

    def _stop_all(self) -> None:
        for kind in ("host", "nic"):
            procs = [self.procs[s.node] for s in self.specs if s.kind == kind and s.node in self.procs]
            for proc in procs:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + STOP_TIMEOUT_S
            for proc in procs:
                try:
                    proc.wait(max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self._reap()

    def _on_signal(self, signum, frame) -> None:
        self.stopping = True

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        self._save()
        try:
            self._start_group("nic")
            self._start_group("host")
        except RuntimeError as exc:
            self.status.update(state="failed", error=str(exc))
            self._stop_all()
            self._save()
            return 1
        self.status["state"] = "ready"
        self._save()
        print(f"rack: {len(self.specs)} processes registered", flush=True)
        while not self.stopping:
            self._reap()
            time.sleep(POLL_S)
        self._stop_all()
        self.status["state"] = "stopped"
        self._save()
        return 0


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m e3.emulation.rack_supervisor STATE_DIR", file=sys.stderr)
        return 2
    return Supervisor(Path(argv[1])).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
