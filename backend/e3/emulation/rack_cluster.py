"""`e3 cluster up --mode rack` / `e3 cluster down`: an emulated SmartNIC rack (docs/rack.md).

Builds the rack's network in namespaces (rack_network), then starts a supervisor process
(rack_supervisor) that runs one e3-nic per SmartNIC and one e3-agent per host, all registering with
the controller as the nodes of one API cluster, over the management bridge. A rack belongs to the
machine (one at a time, root only), so everything of it lives in `/run/e3-racks/<name>/` whatever the
working directory: the network state (`rack.json`), the process specs, the supervisor's status, the
logs, the NICs' counters and the agents' token files (0600, one per server: agent_tokens); /run is emptied at boot, as are the
namespaces. `down` stops the supervisor (which stops its programs) and destroys the network,
whatever state it was left in.
"""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from e3 import catalog
from e3.client.api import Api, ClientError
from e3.core.processes import die_with_parent
from e3.emulation import agent_tokens, rack_network
from e3.emulation.rack_network import NetnsError, RackError
from e3.emulation.rack_plan import plan_rack
from e3.emulation.rack_processes import ApiServer, rack_processes
from e3.emulation.rack_supervisor import STATUS_FILE, START_TIMEOUT_S, load_status, write_specs

RACKS_ROOT = Path("/run/e3-racks")
RACK_FILE = "rack.json"
SUPERVISOR_LOG = "supervisor.log"
STOP_TIMEOUT_S = 30.0


def folder(name: str) -> Path:
    """Where rack `name` keeps its state, logs and counters."""
    return RACKS_ROOT / name


def is_rack(name: str) -> bool:
    """True if `name` is an emulated rack started from here (its network state exists)."""
    return (folder(name) / RACK_FILE).is_file()


def _api_servers(api: Api, name: str, server_type: str, servers: int) -> list[ApiServer]:
    """The API cluster's servers with their host and SmartNIC nodes; ClientError if its shape is not the rack's."""
    by_server: dict[str, list[dict]] = {}
    for node in api.all_pages(f"/api/v1/clusters/{name}/nodes"):
        by_server.setdefault(node["server"], []).append(node)
    result = []
    for server in sorted(by_server):
        nodes = sorted(by_server[server], key=lambda n: n["name"])
        hosts = [n["name"] for n in nodes if n["kind"] == "host"]
        result.append(ApiServer(server, hosts[0] if hosts else "", [n["name"] for n in nodes if n["kind"] == "smartnic"]))
    nics = catalog.server_types()[server_type].smartnics
    if len(result) != servers or any(not s.host or len(s.nics) != nics for s in result):
        raise ClientError(f"cluster {name!r} exists but is not {servers} {server_type} servers; delete it "
                       f"(`e3 cluster delete {name}`) or choose another --name", exit_code=2)
    return result


def rack_controllers(controller: str, gateway: str) -> str:
    """The controllers' addresses (`controller`: host:port[,host:port...]) as the rack's namespaces see them
    (`gateway`, the management bridge's, at each one's port); ClientError if one does not listen there."""
    seen = []
    for address in controller.split(","):
        port = address.strip().rsplit(":", 1)[-1]
        try:
            socket.create_connection((gateway, int(port)), timeout=2).close()
        except (OSError, ValueError) as exc:
            raise ClientError(f"the rack's programs reach the controller at {gateway}:{port} (the management bridge), "
                           f"but nothing listens there ({exc}): start the controller with "
                           f"`e3 controller --host 127.0.0.1,{gateway}` (`e3 up` does this when it runs as root)")
        seen.append(f"{gateway}:{port}")
    return ",".join(seen)


def is_running(name: str) -> bool:
    """True if rack `name`'s supervisor is alive (its programs are being run)."""
    return _supervisor_alive(load_status(folder(name)))


def _supervisor_alive(status: dict | None) -> bool:
    pid = (status or {}).get("pid")
    try:
        return bool(pid) and b"rack_supervisor" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _wait_ready(proc: subprocess.Popen, where: Path) -> dict:
    timeout = START_TIMEOUT_S * 2 + 10  # NICs, then hosts
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = load_status(where)
        if status and status["state"] == "ready":
            return status
        if status and status["state"] == "failed":
            raise ClientError(f"the rack did not start: {status['error']}")
        if proc.poll() is not None:
            log = (where / SUPERVISOR_LOG).read_text(errors="replace")[-2000:]
            raise ClientError(f"the rack's supervisor exited with code {proc.returncode}; its log:\n{log}")
        time.sleep(0.1)
    raise ClientError(f"the rack did not come up within {timeout:.0f}s; see the logs in {where}")


def _stop_supervisor(where: Path) -> dict | None:
    """SIGTERM the supervisor (it stops its programs) and wait; SIGKILL after STOP_TIMEOUT_S."""
    status = load_status(where)
    if not _supervisor_alive(status):
        return status
    pid = status["pid"]
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while _supervisor_alive(status) and time.monotonic() < deadline:
        try:
            os.waitpid(pid, os.WNOHANG)  # our child when we started it
        except ChildProcessError:
            pass
        time.sleep(0.05)
    if _supervisor_alive(status):
        os.kill(pid, signal.SIGKILL)
    return load_status(where)


def up(api: Api, name: str, servers: int, server_type: str, controller: str, attached: bool = False,
       on_step=None) -> list[dict]:
    """Build the rack `name` and start its programs; returns one row per registered program. Attached
    (for `e3 up`), the supervisor gets SIGTERM when this process dies."""
    try:
        plan = plan_rack(name, servers, server_type, rack_network.mgmt_network())
    except ValueError as exc:
        raise ClientError(str(exc), exit_code=2) from exc
    except (RackError, NetnsError) as exc:  # no free management network here: the message names the conflict
        raise ClientError(str(exc)) from exc
    where = folder(name)
    if is_rack(name):
        raise ClientError(f"rack {name!r} is already up; `e3 cluster down {name}` first")
    try:  # refuses, pointing to --mode local, without root or netns support
        rack_network.create(plan, where / RACK_FILE, on_step)
    except (RackError, NetnsError) as exc:
        raise ClientError(str(exc)) from exc
    try:
        if not api.exists(f"/api/v1/clusters/{name}"):  # an existing cluster of that name is reused if it fits
            api.post("/api/v1/clusters", json={"generator": "fattree", "servers": servers,
                                               "server_type": server_type, "name": name})
        api_servers = _api_servers(api, name, server_type, servers)
        agent_tokens.issue(api, token_prefix(name), name, [s.name for s in api_servers], where)
        specs = rack_processes(plan, api_servers, rack_controllers(controller, plan.mgmt_gateway), where, where)
        write_specs(where, specs)
        (where / STATUS_FILE).unlink(missing_ok=True)
        with (where / SUPERVISOR_LOG).open("ab") as log:
            proc = subprocess.Popen([sys.executable, "-m", "e3.emulation.rack_supervisor", str(where)],
                                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, preexec_fn=die_with_parent if attached else None)
        status = _wait_ready(proc, where)
    except BaseException:
        _stop_supervisor(where)
        rack_network.destroy(where / RACK_FILE)
        agent_tokens.revoke_after_failure(api, token_prefix(name))
        raise
    return [dict(node=p["node"], kind=p["kind"], pid=p["pid"], registered=p["registered"], log=p["log"])
            for p in status["processes"]]


def token_prefix(name: str) -> str:
    """The names of the rack's agent tokens start with this (one token per server: agent_tokens)."""
    return f"rack-{name}"


def down(name: str, api: Api | None = None) -> list[dict]:
    """Stop the rack's programs, remove its network (namespaces, veths, DPDK and memif files) and revoke its
    agent tokens (through `api`, else the CLI's connection)."""
    where = folder(name)
    status = _stop_supervisor(where) or {"processes": []}
    try:
        rack_network.destroy(where / RACK_FILE)
    except (RackError, NetnsError) as exc:
        raise ClientError(f"removing the rack's network: {exc}") from exc
    agent_tokens.revoke_at_down(token_prefix(name), api)
    return [dict(node=p["node"], kind=p["kind"], pid=p["pid"],
                 stopped="not started" if p["pid"] is None else f"exit {p['exit_code']}")
            for p in status["processes"]]
