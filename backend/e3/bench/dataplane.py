"""Data-plane benchmark (root): packets/s through the emulated SmartNIC beside raw af_packet, and host<->NIC
memif messages/s, on this machine's veths. Every figure is of the EMULATION: DPDK's net_af_packet on a kernel
veth and net_memif in shared memory, not LiquidIO hardware.

Two network namespaces, `e3b-tx` and `e3b-rx`, joined by one veth pair (`e3b-t` -- `e3b-r`), IPv6 off so
that only the benchmark's frames cross it. The packet pumps are `e3-dpbench` (nic-firmware/bench/), one DPDK
process each with its own --file-prefix. Sections, each a function of a `Bench` returning one dict:
  raw_af_packet: `e3-dpbench tx` in e3b-tx blasts UDP frames, `e3-dpbench rx` in e3b-rx counts them (the same
                 af_packet vdev arguments e3-nic gives its wire ports);
  nic_forward:   the same blast into a real e3-nic in e3b-rx (`--wire e3b-r`, `--poll busy`, `--no-pace`, no
                 controller: its agent retries registration in the background, the traffic manager forwards
                 regardless), whose host link (memif) ends in `e3-dpbench memif-rx` as the host;
  memif:         `e3-dpbench memif-tx` (server, as the NIC is) sends to `memif-rx` (client, as the host is).
The frames are addressed to a MAC that is not e3b-r's, so the receiving kernel drops its copy at once
(PACKET_OTHERHOST) instead of routing it: an artefact of emulating on a veth that both af_packet sections pay
alike. Targets are reported beside the figures, never asserted.

Everything started here (namespaces, processes, DPDK runtime directories, the socket directory) is removed
before returning or raising, Ctrl-C included. The rack's figures (ECMP, failover, NFV-FIN) are rack.py's
(`e3 bench rack`), which `make bench-dataplane` runs next.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from e3.bench.stack import cpu_s, stop_process
from e3.emulation import netns
from e3.emulation.binaries import built_binary, nic_binary

NS_TX, NS_RX = "e3b-tx", "e3b-rx"
IF_TX, IF_RX = "e3b-t", "e3b-r"
SRC_IP, HOST_IP, NIC_IP = "10.99.0.1", "10.99.0.2", "10.99.0.3"  # blaster, the NIC's host, the NIC
DST_MAC = "02:e3:db:00:00:99"  # not e3b-r's: see the module docstring
NO_CONTROLLER = "127.0.0.1:9"  # refused at once inside e3b-rx: e3-nic's agent keeps retrying, harmlessly
READY_TIMEOUT_S = 30.0
DPDK_RUN = Path("/var/run/dpdk")


@dataclass
class DataplaneConfig:
    seconds: float = 3.0  # sending time per section
    rounds: int = 3  # every section this many times, interleaved (a b c a b c ...): the report takes medians
    size: int = 64  # Ethernet frame bytes (no FCS): the per-packet worst case, as pps figures are quoted
    flows: int = 1  # UDP source ports the blaster rotates through
    adaptive_sink: bool = True  # the host sink naps when idle (so it does not take the forwarder's core)


@dataclass
class Bench:
    """What a section needs: the configuration, the binaries, a work directory, and what to clean up."""
    cfg: DataplaneConfig
    workdir: Path
    report: Callable[[str], None]
    dpbench: Path
    tx_mac: str = ""
    procs: list[subprocess.Popen] = field(default_factory=list)

    def prefix(self, role: str) -> str:
        """A DPDK --file-prefix unique to this run and role (its runtime dir is removed at the end)."""
        return f"e3b-{os.getpid()}-{role}"


def dpbench_binary() -> Path:
    """The packet pumps, e3-dpbench (E3_DPBENCH_BIN overrides)."""
    return built_binary("E3_DPBENCH_BIN", "nic-firmware/e3-dpbench")


# --- processes --------------------------------------------------------------------------------------------

def _start(b: Bench, ns: str, name: str, argv: list[str]) -> subprocess.Popen:
    """Start argv in namespace `ns`, stdout to <name>.out and stderr to <name>.err in the work directory; in its
    own session so that Ctrl-C reaches only us and the teardown stops it."""
    with open(b.workdir / f"{name}.out", "wb") as out, open(b.workdir / f"{name}.err", "wb") as err:
        proc = subprocess.Popen(netns.exec_argv(ns, argv), stdout=out, stderr=err, start_new_session=True)
    b.procs.append(proc)
    return proc


def _log(b: Bench, name: str) -> str:
    return "\n".join(p.read_text(errors="replace")[-1500:] for p in (b.workdir / f"{name}.out",
                                                                      b.workdir / f"{name}.err") if p.exists())


def _wait_for(b: Bench, proc: subprocess.Popen, name: str, ready: Callable[[], bool], what: str,
              timeout_s: float = READY_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not ready():
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode} before {what}: {_log(b, name)}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name}: not {what} after {timeout_s:.0f} s: {_log(b, name)}")
        time.sleep(0.05)


def _wait_ready(b: Bench, proc: subprocess.Popen, name: str) -> None:
    """Until e3-dpbench says its port is up (memif: its peer connected)."""
    err = b.workdir / f"{name}.err"
    _wait_for(b, proc, name, lambda: b"ready" in err.read_bytes(), "ready")


def _finish(b: Bench, proc: subprocess.Popen, name: str, stop: bool = True) -> dict:
    """Stop (SIGTERM) or wait for an e3-dpbench and return its JSON line."""
    if stop:
        stop_process(proc)
    else:
        try:
            proc.wait(b.cfg.seconds + READY_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            stop_process(proc)
    out = (b.workdir / f"{name}.out").read_text().strip()
    if proc.returncode != 0 or not out:
        raise RuntimeError(f"{name} failed (exit {proc.returncode}): {_log(b, name)}")
    return json.loads(out.splitlines()[-1])


def _pump(b: Bench, sub: str, *args: str, role: str) -> list[str]:
    return [str(b.dpbench), sub, *args, "--file-prefix", b.prefix(role)]


def _blast(b: Bench) -> dict:
    """`e3-dpbench tx` in e3b-tx for cfg.seconds, to HOST_IP; its JSON."""
    c = b.cfg
    proc = _start(b, NS_TX, "tx", _pump(b, "tx", "--iface", IF_TX, "--dst-mac", DST_MAC, "--dst-ip", HOST_IP,
                                        "--src-ip", SRC_IP, "--size", str(c.size), "--flows", str(c.flows),
                                        "--seconds", str(c.seconds), role="tx"))
    return _finish(b, proc, "tx", stop=False)


def _receiver_seconds(b: Bench) -> str:
    """A receiver's longest life: it is stopped with SIGTERM once the sender is done."""
    return str(b.cfg.seconds + 2 * READY_TIMEOUT_S)


# --- the network --------------------------------------------------------------------------------------------

def create_link(b: Bench) -> None:
    """e3b-tx and e3b-rx joined by a veth pair, IPv6 off (no router solicitations on the wire), links up."""
    for ns in (NS_TX, NS_RX):
        netns.delete_netns(ns)  # a previous run's, killed before its teardown
        netns.add_netns(ns)
        netns.sysctl({"net.ipv6.conf.all.disable_ipv6": 1, "net.ipv6.conf.default.disable_ipv6": 1}, ns=ns)
    netns.ip("link", "add", IF_TX, "netns", NS_TX, "type", "veth", "peer", "name", IF_RX, "netns", NS_RX)
    netns.ip("link", "set", "dev", IF_TX, "up", ns=NS_TX)
    netns.ip("link", "set", "dev", IF_RX, "up", ns=NS_RX)
    b.tx_mac = netns.ip_json("link", "show", "dev", IF_TX, ns=NS_TX)[0]["address"]


def teardown(b: Bench) -> None:
    """Stop every process started here, delete the namespaces (and so the veths), remove DPDK runtime dirs."""
    for proc in b.procs:
        stop_process(proc, grace_s=5.0)
    errors = []
    for ns in (NS_TX, NS_RX):
        try:
            netns.delete_netns(ns)
        except netns.NetnsError as exc:
            errors.append(str(exc))
    for leftover in DPDK_RUN.glob(b.prefix("*")):
        shutil.rmtree(leftover, ignore_errors=True)
    shutil.rmtree(b.workdir, ignore_errors=True)
    if errors:
        raise RuntimeError("; ".join(errors))


# --- sections ------------------------------------------------------------------------------------------------

def raw_af_packet(b: Bench) -> dict:
    """a. DPDK af_packet to DPDK af_packet over the veth: the baseline."""
    b.report(f"a. raw af_packet: blasting {b.cfg.seconds:g} s over {IF_TX} -> {IF_RX}")
    rx = _start(b, NS_RX, "rx", _pump(b, "rx", "--iface", IF_RX, "--seconds", _receiver_seconds(b), role="rx"))
    _wait_ready(b, rx, "rx")
    tx = _blast(b)
    time.sleep(0.2)  # the last frames in flight
    got = _finish(b, rx, "rx")
    return dict(key="raw_af_packet", title="a. raw af_packet (DPDK tx -> veth -> DPDK rx)", unit="packets/s",
                value=got["pps"], sent_pps=tx["pps"], sent=tx["sent"], received=got["received"],
                lost=max(0, tx["sent"] - got["received"]),
                note="DPDK net_af_packet on both ends of one kernel veth, receiver busy-polling")


def _start_nic(b: Bench) -> tuple[subprocess.Popen, Path]:
    """e3-nic in e3b-rx, host link to a socket in the work directory, no controller; running once its stats
    file and memif socket exist."""
    stats, sock = b.workdir / "nic.stats.json", b.workdir / "host.sock"
    nic = _start(b, NS_RX, "nic", [str(nic_binary()), "--wire", IF_RX, "--gateway", b.tx_mac, "--memif", str(sock),
                                   "--host-address", HOST_IP, "--poll", "busy", "--no-pace", "--file-prefix",
                                   b.prefix("nic"), "--stats", str(stats), "--cluster", "bench-dataplane", "--node",
                                   "bench/nic0", "--address", NIC_IP, "--controller", NO_CONTROLLER, "--token",
                                   "none", "--log-level", "error"])
    _wait_for(b, nic, "nic", lambda: stats.exists() and sock.exists(), "forwarding (stats file and memif socket)")
    return nic, stats


def nic_forward(b: Bench) -> dict:
    """b. The same blast through e3-nic's traffic manager to a memif sink: what reaches the host."""
    import psutil

    b.report(f"b. e3-nic: blasting {b.cfg.seconds:g} s into e3-nic on {IF_RX}, host link to a memif sink")
    nic, stats = _start_nic(b)
    sink_args = ["--socket", str(b.workdir / "host.sock"), "--seconds", _receiver_seconds(b)]
    sink = _start(b, NS_RX, "sink", _pump(b, "memif-rx", *sink_args, *(["--adaptive"] if b.cfg.adaptive_sink
                                                                        else []), role="sink"))
    _wait_ready(b, sink, "sink")
    time.sleep(0.1)  # the traffic manager sees the host link up (it looks every 10 ms)
    watched = {"nic": psutil.Process(nic.pid), "sink": psutil.Process(sink.pid)}
    cpu0, t0 = {k: cpu_s(p) for k, p in watched.items()}, time.monotonic()
    tx = _blast(b)
    cpu1, t1 = {k: cpu_s(p) for k, p in watched.items()}, time.monotonic()
    time.sleep(0.2)
    got = _finish(b, sink, "sink")
    stop_process(nic)  # writes its final counters
    if nic.returncode != 0:
        raise RuntimeError(f"e3-nic exited with {nic.returncode}: {_log(b, 'nic')}")
    tm = json.loads(stats.read_text())
    drops = {k: v for k, v in tm["drops"].items() if v}
    return dict(key="nic_forward", title="b. e3-nic forwarding (veth -> af_packet -> TM -> memif -> host)",
                unit="packets/s", value=got["pps"], sent_pps=tx["pps"], sent=tx["sent"], received=got["received"],
                lost=max(0, tx["sent"] - got["received"]), tm_wire_rx=tm["wire_rx"], tm_host_tx=tm["host_tx"],
                tm_drops=drops, sink_adaptive=b.cfg.adaptive_sink,
                cpu_pct={k: round(100 * (cpu1[k] - cpu0[k]) / (t1 - t0), 1) for k in watched},
                note="EMULATED SmartNIC: e3-nic --poll busy --no-pace; sender, traffic manager and sink share "
                     f"this machine's {os.cpu_count()} cores")


def memif(b: Bench) -> dict:
    """c. memif messages/s one way, server (the NIC's side) to client (the host's side)."""
    b.report(f"c. memif: {b.cfg.seconds:g} s from a memif server to a memif client")
    sock = b.workdir / "memif.sock"
    tx = _start(b, NS_RX, "memif-tx", _pump(b, "memif-tx", "--socket", str(sock), "--size", str(b.cfg.size),
                                            "--seconds", str(b.cfg.seconds), role="mtx"))
    _wait_for(b, tx, "memif-tx", sock.exists, "listening")
    rx = _start(b, NS_RX, "memif-rx", _pump(b, "memif-rx", "--socket", str(sock), "--seconds",
                                            _receiver_seconds(b), role="mrx"))
    _wait_ready(b, rx, "memif-rx")
    # The client leaves first: memif-tx prints its figures when done sending and stays until its client has
    # gone (a client still polling when its server leaves can crash in DPDK's memif PMD; e3-dpbench.c).
    _wait_for(b, tx, "memif-tx", lambda: b"}" in (b.workdir / "memif-tx.out").read_bytes(), "done sending",
              timeout_s=b.cfg.seconds + READY_TIMEOUT_S)
    time.sleep(0.2)
    got = _finish(b, rx, "memif-rx")
    sent = _finish(b, tx, "memif-tx", stop=False)
    return dict(key="memif", title="c. memif host<->NIC link (one way, server -> client)", unit="messages/s",
                value=got["pps"], sent_pps=sent["pps"], sent=sent["sent"], received=got["received"],
                refused=sent["refused"], note="DPDK net_memif in shared memory, both ends busy-polling, "
                                              "copy mode, default rings (1024 x 2048 B)")


SECTIONS: list[Callable[[Bench], dict]] = [raw_af_packet, nic_forward, memif]


def run_dataplane_bench(cfg: DataplaneConfig, report=print,
                        sections: list[Callable[[Bench], dict]] | None = None) -> dict:
    """Run the sections in order, cfg.rounds times; returns every run's figures (each with its round).
    Needs root and network namespaces (RuntimeError otherwise); everything started is stopped and removed
    before returning or raising."""
    why = netns.netns_supported()
    if why:
        raise RuntimeError(f"bench dataplane: {why}")
    dpbench = dpbench_binary()
    nic_binary()  # missing binaries fail before anything starts
    b = Bench(cfg=cfg, workdir=Path(tempfile.mkdtemp(prefix="e3b-dataplane-")), report=report, dpbench=dpbench)
    results = []
    try:
        create_link(b)
        for round_ in range(cfg.rounds):
            report(f"round {round_ + 1} of {cfg.rounds}")
            for section in sections or SECTIONS:
                results.append(dict(section(b), round=round_ + 1))
    finally:
        report("tearing down the e3b- namespaces")
        teardown(b)
    return dict(sections=results, seconds=cfg.seconds, rounds=cfg.rounds, size=cfg.size, flows=cfg.flows,
                machine_cores=os.cpu_count(), emulated=True)
