"""Text report for the data-plane benchmark: one line per section (the median of its rounds), then the issue's
targets beside the figures (reported, never asserted). Pure: it renders a list of section dicts (dataplane.py's:
key, title, unit, value, note, ...), whatever sections ran and however many rounds of each."""

from statistics import median

TARGET_NIC_RATIO = 0.70  # e3-nic's forwarded packets/s over raw af_packet's on the same veth
TARGET_MEMIF_MPS = 1_000_000  # host<->NIC memif messages/s
SENDER_BOUND = 0.97  # delivered fraction above which a receiver kept up with the sender


def grouped(sections: list[dict]) -> dict[str, list[dict]]:
    """Runs per section key, in the order the keys first ran."""
    out: dict[str, list[dict]] = {}
    for s in sections:
        out.setdefault(s["key"], []).append(s)
    return out


def medians(sections: list[dict]) -> dict[str, float]:
    """The median figure of each section over its rounds."""
    return {key: median(s["value"] for s in runs) for key, runs in grouped(sections).items()}


def targets(sections: list[dict]) -> list[dict]:
    """The targets that apply to the sections given, on their medians: what, value, target, met (None when a
    section did not run)."""
    m = medians(sections)
    raw, nic = m.get("raw_af_packet"), m.get("nic_forward")
    ratio = nic / raw if raw and nic is not None else None
    out = [dict(what="e3-nic forwarded / raw af_packet, packets/s on the same veth", value=ratio,
                target=TARGET_NIC_RATIO, met=None if ratio is None else ratio >= TARGET_NIC_RATIO, fmt="pct")]
    rate = m.get("memif")
    out.append(dict(what="memif host<->NIC messages/s", value=rate, target=TARGET_MEMIF_MPS,
                    met=None if rate is None else rate >= TARGET_MEMIF_MPS, fmt="rate"))
    return out


def delivered(s: dict) -> float:
    """The fraction of the frames sent that were received."""
    return s["received"] / s["sent"] if s["sent"] else 0.0


def _num(v, fmt: str) -> str:
    if v is None:
        return "-"
    return f"{100 * v:.1f}%" if fmt == "pct" else f"{v:,.0f}"


def _details(s: dict) -> list[str]:
    lines = [f"      sent {s['sent']:,} ({s['sent_pps']:,.0f}/s), received {s['received']:,}"
             + (f", not received {s['lost']:,}" if "lost" in s else "")
             + (f", refused by a full ring {s['refused']:,}" if s.get("refused") else "")]
    if "tm_wire_rx" in s:
        drops = ", ".join(f"{k} {v:,}" for k, v in s["tm_drops"].items()) or "none"
        lines.append(f"      traffic manager: wire_rx {s['tm_wire_rx']:,}, host_tx {s['tm_host_tx']:,}, drops: {drops}")
    if "cpu_pct" in s:
        cpu = ", ".join(f"{k} {v:g}%" for k, v in s["cpu_pct"].items())
        sink = "adaptive (naps 100 us after a short burst)" if s.get("sink_adaptive") else "busy-polling"
        lines.append(f"      CPU while sending, % of one core: {cpu}; sink {sink}")
    lines.append(f"      {s['note']}")
    return lines


def _median_run(runs: list[dict]) -> dict:
    """The run whose figure is the (lower) median: its details stand for the section."""
    ordered = sorted(runs, key=lambda s: s["value"])
    return ordered[(len(ordered) - 1) // 2]


def render(result: dict) -> str:
    """The report for dataplane.run_dataplane_bench's result."""
    sections, m = result["sections"], medians(result["sections"])
    lines = [f"Data plane (EMULATED: DPDK net_af_packet on kernel veths, net_memif in shared memory; no LiquidIO "
             f"hardware): {result['size']}-byte UDP frames, {result['flows']} flow(s), {result['seconds']:g} s per "
             f"section, {result['rounds']} round(s), medians; this machine ({result['machine_cores']} cores, shared "
             f"by every process of a section)", ""]
    for key, runs in grouped(sections).items():
        s = _median_run(runs)
        lines.append(f"  {s['title']:<66} {m[key]:>14,.0f} {s['unit']}")
        if len(runs) > 1:
            figures = ", ".join(f"{r['value']:,.0f}" for r in runs)
            lines.append(f"      rounds: {figures}; details of the median run:")
        lines += _details(s)
    lines += ["", "Targets (the issue's; reported, not asserted)"]
    for t in targets(sections):
        state = {True: "met", False: "NOT met", None: "n/a"}[t["met"]]
        lines.append(f"  [{state}] {t['what']}: {_num(t['value'], t['fmt'])} (target >= {_num(t['target'], t['fmt'])})")
    nic = grouped(sections).get("nic_forward")
    if nic and delivered(_median_run(nic)) >= SENDER_BOUND:
        lines.append("  (e3-nic delivered what the sender sent, less at most "
                     f"{100 * (1 - SENDER_BOUND):g}%: both af_packet figures are bounded by what one sender core "
                     "pushes through the kernel's veth; e3-nic's own ceiling is higher)")
    return "\n".join(lines)
