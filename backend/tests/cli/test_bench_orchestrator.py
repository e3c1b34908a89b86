"""`e3 bench orchestrator` at a tiny scale: every injected trouble decided, JSON and text a user reads."""

import json
import subprocess
import sys


def _bench(*args):
    return subprocess.run([sys.executable, "-m", "e3", "bench", "orchestrator", *args], capture_output=True,
                          text=True, timeout=300)


def test_json_has_a_row_per_size_and_every_injection_decided():
    proc = _bench("--section", "decision", "--servers", "20,40", "--injections", "30", "--batch", "8", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert list(result) == ["decision"]
    section = result["decision"]
    assert section["paper_fig11"]["heartbeat_period_ms"] == 50 and section["target"]["decision_p99_ms"] == 1.0
    assert [r["servers"] for r in section["runs"]] == [20, 40]
    for r in section["runs"]:
        assert r["nodes"] == 5 * r["servers"] and r["smartnics"] == 4 * r["servers"]
        assert r["injected"] == 30 and r["decisions"] == 30 and r["missed"] == []
        assert r["detected_by_kind"] == {"overload": 15, "host_starvation": 15}
        assert r["spurious_detections"] == 0
        assert sum(r["target_levels"].values()) == 30 and set(r["target_levels"]) <= {"same server", "rack", "pod",
                                                                                       "remote"}
        for key in ("decision", "decision_cpu", "detect_only", "decide_only"):
            s = r[key]
            assert 0 < s["p50_ms"] <= s["p99_ms"] <= s["max_ms"], (key, s)
        assert r["ingest_us_per_heartbeat"] > 0 and r["heartbeats_per_s_at_50ms"] == r["nodes"] * 20


def test_text_report_and_unwritten_sections():
    proc = _bench("--servers", "20", "--injections", "10", "--batch", "5")
    assert proc.returncode == 0, proc.stderr
    for text in ("Orchestrator decision latency", "Paper Figure 11", "Targets", "10/10"):
        assert text in proc.stdout, text
    for section in ("migration", "figure7"):
        proc = _bench("--section", section, "--servers", "20")
        assert proc.returncode != 0 and "not implemented yet" in proc.stderr
    assert _bench("--section", "nonsense").returncode == 2
