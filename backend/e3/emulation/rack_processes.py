"""The command lines of an emulated rack's programs (e3-nic today; the hosts' e3-agent with memif next).

Pure: builds argv lists; starting them (inside the server's namespace, `ip netns exec`) is the
caller's. Servers of the plan map to the API cluster's servers in order (s1 is the first server).
"""

from pathlib import Path

from e3.emulation.binaries import nic_binary
from e3.emulation.netns import exec_argv
from e3.emulation.rack_plan import NicPlan, RackPlan, ServerPlan

REGISTERED = "e3-nic: registered"


def nic_stats_path(state_dir: Path, nic: NicPlan) -> Path:
    """Where a NIC writes its traffic counters (JSON, rewritten every second)."""
    return state_dir / f"{nic.file_prefix}.stats.json"


def nic_argv(plan: RackPlan, server: ServerPlan, nic: NicPlan, api_server: str, controller: str,
             token_file: Path, state_dir: Path) -> list[str]:
    """`ip netns exec <server ns> e3-nic ...` for one NIC: its wire ports with the ToR's MACs as
    gateways, its memif host link, and the node it registers (`<api_server>/nic<k>`)."""
    args = [str(nic_binary())]
    for index in nic.ports:
        port = server.ports[index]
        args += ["--wire", port.server_ifname, "--gateway", port.tor_mac]
    args += ["--memif", nic.memif_socket, "--host-address", server.host_ip,
             "--file-prefix", nic.file_prefix, "--stats", str(nic_stats_path(state_dir, nic)),
             "--cluster", plan.cluster, "--server", api_server, "--node", f"{api_server}/{nic.name}",
             "--address", nic.ip, "--controller", controller, "--token-file", str(token_file)]
    return exec_argv(server.ns, args)
