"""`e3 up` with E3_EMULATED_BMC=1: the first server of its cluster gets an emulated BMC (bmc_sim) on loopback,
and the cluster's power sources put IPMI first, so that server's nodes show `ipmi-split` (docs/energy.md
"IPMI DCMI").

The BMC answers a constant figure, the middle of the server type's Table 4 idle and peak watts, from a
file under the data directory: write another number (or `silent`, `garbage`, ...) into it to watch the
nodes follow, or fall back. Its credentials are a random password in a 0600 file next to it.
"""

import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

from e3 import catalog
from e3.client.api import Api, ClientError
from e3.core.embedded import free_tcp_port
from e3.core.processes import die_with_parent

START_TIMEOUT_S = 10.0


def _private(path: Path, text: str) -> Path:
    path.touch(mode=0o600)
    os.chmod(path, 0o600)
    path.write_text(text)
    return path


def start(api: Api, cluster: str, folder: Path) -> tuple[subprocess.Popen, Path]:
    """Start the BMC of `cluster`'s first server and make the controller poll it; the process (it dies with
    this one) and its watts file. ClientError when it cannot."""
    nodes = api.all_pages(f"/api/v1/clusters/{cluster}/nodes")
    if not nodes:
        raise ClientError(f"cluster {cluster!r} has no nodes")
    server = nodes[0]["server"]
    detail = api.get(f"/api/v1/clusters/{cluster}")
    server_type = next(s["server_type"] for rack in detail["topology"] for s in rack["servers"] if s["name"] == server)
    kind = catalog.server_types()[server_type]
    folder.mkdir(parents=True, exist_ok=True)
    # 16 characters: IPMI passwords are at most 20 bytes (16 in IPMI 1.5), and ipmitool cuts longer ones
    creds = _private(folder / "bmc.cred", f"admin\n{secrets.token_hex(8)}\n")
    watts = folder / "watts"
    watts.write_text(f"{round((kind.idle_watts + kind.peak_watts) / 2)}\n")
    port = free_tcp_port()
    with (folder / "bmc.log").open("wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "e3.emulation.bmc_sim", "--port", str(port),
                                 "--credentials-file", str(creds), "--watts-file", str(watts)],
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                preexec_fn=die_with_parent)
    deadline = time.monotonic() + START_TIMEOUT_S
    while b"listening" not in (folder / "bmc.log").read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise ClientError(f"the emulated BMC did not start; see {folder / 'bmc.log'}")
        time.sleep(0.05)
    api.request("PUT", f"/api/v1/clusters/{cluster}/power", json={
        "precedence": ["ipmi", "rapl", "model"],
        "bmcs": {server: {"address": "127.0.0.1", "port": port, "credentials_file": str(creds)}}})
    return proc, watts
