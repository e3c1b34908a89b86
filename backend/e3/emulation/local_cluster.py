"""`e3 cluster up --mode local` / `e3 cluster down`: a cluster of real e3-agent processes on loopback.

The cluster is created through the API (a fat tree of N servers of one type); one e3-agent per host
node is started detached from the terminal, registers with the controller and stays up until
`e3 cluster down`. What was started is kept in `<data dir>/local-clusters/<name>.json` (pids, logs)
next to an agent token file (0600). Server types with SmartNICs need the emulated rack instead
(`--mode rack`, rack_cluster.py).
"""

import json
import os
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from e3 import catalog
from e3.client.api import Api, ClientError
from e3.core.processes import die_with_parent, wait_registered
from e3.core.config import get_settings
from e3.core.envfile import find_env_file
from e3.emulation import agent_tokens
from e3.emulation.binaries import agent_binary

REGISTERED = "e3-agent: registered"
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0


@dataclass
class AgentProcess:
    node: str
    server: str
    pid: int
    log: str


def state_dir() -> Path:
    env_file = find_env_file()
    return (env_file.parent if env_file else get_settings().data_dir.resolve()) / "local-clusters"


def _state_file(name: str) -> Path:
    return state_dir() / f"{name}.json"


def _is_agent(pid: int) -> bool:
    """True if `pid` is alive and still an e3-agent (a pid may have been reused)."""
    try:
        return b"e3-agent" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _load(name: str) -> list[AgentProcess]:
    path = _state_file(name)
    if not path.is_file():
        return []
    return [AgentProcess(**a) for a in json.loads(path.read_text())["agents"]]


def _save(name: str, agents: list[AgentProcess]) -> None:
    path = _state_file(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cluster": name, "agents": [asdict(a) for a in agents]}, indent=2))


def up(api: Api, name: str, servers: int, server_type: str, workers: int, controller: str,
       attached: bool = False) -> list[dict]:
    """Create the cluster (or reuse it) and start one registered agent per host node. Detached agents
    outlive this process; attached ones get SIGTERM when it dies (for `e3 up`)."""
    running = [a for a in _load(name) if _is_agent(a.pid)]
    if running:
        raise ClientError(f"local cluster {name!r} is already up ({len(running)} agents); `e3 cluster down {name}` first")
    types = catalog.server_types()
    if server_type not in types:
        raise ClientError(f"unknown server type {server_type!r}; use one of: {', '.join(types)}", exit_code=2)
    kind = types[server_type]
    if kind.smartnics:
        raise ClientError(f"{server_type} has SmartNICs: local mode runs host agents only; use `--mode rack` (an "
                       "emulated SmartNIC rack, root) or a server type without SmartNICs (beefy, wimpy)", exit_code=2)
    binary = agent_binary()
    if not api.exists(f"/api/v1/clusters/{name}"):  # an existing cluster of that name is reused as it is
        api.post("/api/v1/clusters", json={"generator": "fattree", "servers": servers, "server_type": server_type,
                                           "name": name})
    nodes = [n for n in api.all_pages(f"/api/v1/clusters/{name}/nodes") if n["kind"] == "host"]
    folder = state_dir() / name
    token_files = agent_tokens.issue(api, token_prefix(name), name, sorted({n["server"] for n in nodes}), folder)
    agents: list[AgentProcess] = []
    procs: list[subprocess.Popen] = []
    try:
        for node in nodes:
            log = folder / f"{node['name'].replace('/', '_')}.log"
            args = [str(binary), "--controller", controller, *agent_tokens.controller_trust_args(),
                    "--token-file", str(token_files[node["server"]]),
                    "--cluster", name,
                    "--node", node["name"], "--server", node["server"], "--kind", "host", "--address", "127.0.0.1",
                    "--workers", str(workers), "--cpu-source", "engine",  # agents share this machine's CPUs
                    "--power-idle-w", str(kind.idle_watts),
                    "--power-peak-w", str(kind.peak_watts)]
            with log.open("wb") as out:
                proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        start_new_session=True,  # Ctrl-C in the terminal is not for them
                                        preexec_fn=die_with_parent if attached else None)
            procs.append(proc)
            agents.append(AgentProcess(node["name"], node["server"], proc.pid, str(log)))
            _save(name, agents)
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            lines = [wait_registered(p, Path(a.log), deadline, f"the agent of {a.node}") for a, p in zip(agents, procs)]
        except RuntimeError as exc:
            raise ClientError(str(exc)) from exc
    except BaseException:
        _stop(agents)
        _state_file(name).unlink(missing_ok=True)
        agent_tokens.revoke_after_failure(api, token_prefix(name))
        raise
    return [dict(node=a.node, pid=a.pid, log=a.log, registered=line[len(REGISTERED):].strip())
            for a, line in zip(agents, lines)]


def _stop(agents: list[AgentProcess]) -> list[dict]:
    alive = [a for a in agents if _is_agent(a.pid)]
    for agent in alive:
        os.kill(agent.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    result = []
    for agent in alive:
        while _is_agent(agent.pid) and time.monotonic() < deadline:
            _reap(agent.pid)
            time.sleep(0.05)
        killed = _is_agent(agent.pid)
        if killed:
            os.kill(agent.pid, signal.SIGKILL)
        result.append(dict(node=agent.node, pid=agent.pid, stopped="killed" if killed else "terminated"))
    return result


def _reap(pid: int) -> None:
    """Collect the exit status when the agent is our child (started by this process)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def token_prefix(name: str) -> str:
    """The names of the cluster's agent tokens start with this (one token per server: agent_tokens)."""
    return f"local-{name}"


def down(name: str, api: Api | None = None) -> list[dict]:
    """Stop the cluster's agents (SIGTERM, then SIGKILL after STOP_TIMEOUT_S); forget them; revoke their tokens
    (through `api`, else the CLI's connection)."""
    agents = _load(name)
    if not agents:
        raise ClientError(f"no local cluster {name!r} was started from here (nothing in {state_dir()})")
    stopped = _stop(agents)
    _state_file(name).unlink(missing_ok=True)
    agent_tokens.revoke_at_down(token_prefix(name), api)
    return stopped
