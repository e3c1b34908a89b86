"""The rack benchmarks' report: ECMP spread and failover from the NICs' counters, NFV-FIN HCM vs hosts."""


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _ecmp(s: dict) -> list[str]:
    after = s["after_kill"]
    verdict = "within" if s["spread"] <= s["target"] else "OUTSIDE"
    return [
        f"ECMP over a type2-smartnic server's 4 emulated NICs ({s['connections']} host connections, one request "
        f"each, counted by the NICs' wire_rx):",
        f"  per NIC: {', '.join(str(c) for c in s['per_nic'])}   answered {s['answered']}/{s['connections']}",
        f"  largest deviation from even: {_pct(s['spread'])}  ({verdict} the ±{_pct(s['target'])} target)",
        f"  after SIGKILL of nic0: per NIC {', '.join(str(c) for c in after['per_nic'])}, answered "
        f"{after['answered']}/{s['connections']}, spread over the 3 survivors {_pct(after['spread_over_survivors'])}",
    ]


def _nfv(s: dict) -> list[str]:
    hcm, hosts = s["hcm"], s["hosts"]
    lines = [f"NFV-FIN on 3 x type1-smartnic (emulated), e3-loadgen closed loop, {s['connections']} connections, "
             f"{s['seconds']:g} s; energy: {s['energy_source']} (not measured)"]
    for label, r in (("HCM", hcm), ("hosts only", hosts)):
        jpr = f"{r['joules_per_request'] * 1000:.2f} mJ" if r["joules_per_request"] else "n/a"
        lines.append(f"  {label:<10} {r['throughput_rps']:>10.0f} req/s  p99 {r['p99_us']:>8.0f} us  "
                     f"{r['watts']:>6.0f} W  {jpr}/request  ({r['on_nics']}/{r['instances']} instances on NICs, "
                     f"{r['errors']} errors, {r['timeouts']} timeouts)")
    if hcm["joules_per_request"] and hosts["joules_per_request"]:
        lines.append(f"  HCM / hosts: throughput x{hcm['throughput_rps'] / hosts['throughput_rps']:.2f}, "
                     f"joules per request x{hcm['joules_per_request'] / hosts['joules_per_request']:.2f} "
                     "(the paper's Figure 5 expects below 1 for NFV; here throughput is bound by this machine's "
                     "shared cores, not by the modelled servers)")
    return lines


def render(sections: list[dict]) -> str:
    lines = []
    for s in sections:
        lines += (_ecmp(s) if s["section"] == "ecmp" else _nfv(s)) + [""]
    return "\n".join(lines).rstrip()
