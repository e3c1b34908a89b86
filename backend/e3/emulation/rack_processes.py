"""The command lines of an emulated rack's programs: one e3-nic per SmartNIC, one e3-agent per host.

Pure: builds argv lists; starting them (inside the server's namespace, `ip netns exec`) is the
supervisor's (rack_supervisor). Servers of the plan map to the API cluster's servers in order (s1 is
the first server); `ApiServer` names the nodes the programs register as.
"""

from dataclasses import dataclass
from pathlib import Path

from e3 import catalog
from e3.emulation import agent_tokens
from e3.emulation.binaries import agent_binary, nic_binary
from e3.emulation.netns import exec_argv
from e3.emulation.rack_plan import NicPlan, RackPlan, ServerPlan

REGISTERED = "e3-nic: registered"
# DPDK 22.11's af_packet PMD joins PACKET_FANOUT group (pid ^ ifindex) & 0xffff; two NICs in one server
# namespace (type2) whose pids and ifindexes happen to give the same id clash (EINVAL). A new pid fixes it.
FANOUT_CLASH = "could not set PACKET_FANOUT"
HOST_REGISTERED = "e3-agent: registered"
NIC_IDLE_SHARE_W = 15.0  # a type1-smartnic server's idle (98 W) minus a beefy's (83 W): one LiquidIO
HOST_WORKERS = 2  # engine worker threads per host agent (the machine has few cores to share)


@dataclass(frozen=True)
class ApiServer:
    """A server of the API's cluster: its name and the names of its host and SmartNIC nodes."""

    name: str
    host: str
    nics: list[str]


@dataclass(frozen=True)
class ProcessSpec:
    """One program of the rack, as the supervisor starts it."""

    kind: str  # "nic" | "host"
    node: str  # the API node it registers as
    argv: list[str]
    log: str
    registered: str  # the line prefix that says it registered
    ns: str  # its server namespace
    wire_ifnames: list[str]  # a NIC's wire ports in `ns` (set down when it dies); [] for a host
    retry_if: str | None = None  # a start that fails with this in its log is tried again (a new pid)


def nic_stats_path(state_dir: Path, nic: NicPlan) -> Path:
    """Where a NIC writes its traffic counters (JSON, rewritten every second)."""
    return state_dir / f"{nic.file_prefix}.stats.json"


def _agent_args(plan: RackPlan, node: str, api_server: str, address: str, controller: str, token_file: Path) -> list[str]:
    return ["--cluster", plan.cluster, "--server", api_server, "--node", node, "--address", address,
            "--controller", controller, *agent_tokens.controller_trust_args(), "--token-file", str(token_file)]


def nic_argv(plan: RackPlan, server: ServerPlan, nic: NicPlan, api_server: str, controller: str,
             token_file: Path, state_dir: Path, node: str | None = None) -> list[str]:
    """`ip netns exec <server ns> e3-nic ...` for one NIC: its wire ports with the ToR's MACs as
    gateways, its memif host link, and the node it registers (default `<api_server>/<nic name>`)."""
    args = [str(nic_binary())]
    for index in nic.ports:
        port = server.ports[index]
        args += ["--wire", port.server_ifname, "--gateway", port.tor_mac]
    args += ["--memif", nic.memif_socket, "--host-address", server.host_ip,
             "--file-prefix", nic.file_prefix, "--stats", str(nic_stats_path(state_dir, nic)),
             "--power-idle-w", f"{NIC_IDLE_SHARE_W:.1f}",
             *_agent_args(plan, node or f"{api_server}/{nic.name}", api_server, nic.ip, controller, token_file)]
    return exec_argv(server.ns, args)


def host_power_w(server_type: str) -> tuple[float, float]:
    """The host's share of the server's modelled (idle, peak) watts: the server's minus its NICs' idle shares."""
    kind = catalog.server_types()[server_type]
    share = NIC_IDLE_SHARE_W * kind.smartnics
    return kind.idle_watts - share, kind.peak_watts - share


def host_argv(plan: RackPlan, server: ServerPlan, api_server: str, host_node: str, controller: str,
              token_file: Path) -> list[str]:
    """`ip netns exec <server ns> e3-agent ...` for the host: its only data path is memif to each of its
    NICs (teaming: the flow hash picks the NIC), its control path the management network."""
    idle, peak = host_power_w(plan.server_type)
    args = [str(agent_binary())]
    for nic in server.nics:
        args += ["--memif", nic.memif_socket]
    args += ["--file-prefix", server.host_file_prefix, "--kind", "host", "--workers", str(HOST_WORKERS),
             "--cpu-source", "engine", "--power-idle-w", f"{idle:.1f}", "--power-peak-w", f"{peak:.1f}",
             *_agent_args(plan, host_node, api_server, server.host_ip, controller, token_file)]
    return exec_argv(server.ns, args)


def rack_processes(plan: RackPlan, api_servers: list[ApiServer], controller: str, token_folder: Path,
                   state_dir: Path) -> list[ProcessSpec]:
    """Every program of the rack, NICs first (a host's memif links need its NICs' sockets); each server's
    programs use that server's agent token (agent_tokens.token_file(token_folder, server))."""
    if len(api_servers) != len(plan.servers):
        raise ValueError(f"servers: the API cluster has {len(api_servers)}, the rack plan {len(plan.servers)}")
    nics, hosts = [], []
    for server, api in zip(plan.servers, api_servers):
        if len(api.nics) != len(server.nics):
            raise ValueError(f"servers: {api.name} has {len(api.nics)} SmartNIC nodes, the plan {len(server.nics)}")
        token_file = agent_tokens.token_file(token_folder, api.name)
        for nic, node in zip(server.nics, api.nics):
            nics.append(ProcessSpec(
                "nic", node, nic_argv(plan, server, nic, api.name, controller, token_file, state_dir, node),
                str(state_dir / f"{nic.file_prefix}.log"), REGISTERED, server.ns,
                [server.ports[i].server_ifname for i in nic.ports], FANOUT_CLASH))
        hosts.append(ProcessSpec(
            "host", api.host, host_argv(plan, server, api.name, api.host, controller, token_file),
            str(state_dir / f"{server.host_file_prefix}.log"), HOST_REGISTERED, server.ns, []))
    return nics + hosts

