"""`e3 bench orchestrator` at a tiny scale: every injected trouble decided, JSON and text a user reads; the rack
sections refused without root, and their report from canned figures (the rack runs are benchmarks, not tests)."""

import json
import os
import subprocess
import sys

import pytest

from e3.bench.orchestrator_report import render


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


def test_text_report_and_bad_sections():
    proc = _bench("--servers", "20", "--injections", "10", "--batch", "5")
    assert proc.returncode == 0, proc.stderr
    for text in ("Orchestrator decision latency", "Paper Figure 11", "Targets", "10/10"):
        assert text in proc.stdout, text
    assert _bench("--section", "nonsense").returncode == 2


@pytest.mark.parametrize("front", [False, True], ids=["python-detector", "front-detector"])
def test_the_real_path_decides_every_troubled_window_and_times_each_step(front):
    """Judged by the Python controller, or behind its ingest front, by the front's detector (src/detector.cc)."""
    proc = _bench("--section", "real", "--servers", "4", "--seconds", "11", "--troubled-nics", "2", "--json",
                  *(["--front"] if front else []))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    (run,) = result["real"]["runs"]
    assert run["servers"] == 4 and run["loss"] == 0 and run["front"] is front
    # NIC 0 troubled at 2 s and 8 s, NIC 1 at 5 s: each window detected, each detection decided or told why not
    assert run["injected"] == run["windows_sent_enough"] == 3 and run["detections"] == 3
    assert run["decisions"] + run["no_decisions"] == 3 and run["decisions"] >= 1
    total, ingest, decision = run["heartbeat_to_decision"], run["heartbeat_to_detection"], run["detection_to_decision"]
    assert total["samples"] == ingest["samples"] == decision["samples"] == 3
    assert 0 < ingest["max_ms"] <= total["max_ms"] and decision["max_ms"] <= total["max_ms"]
    assert run["decide"]["max_ms"] <= decision["max_ms"]
    assert run["view_read"]["samples"] == 3 and run["config"]["troubled_nics"] == 2
    text = render(result)
    for line in ("windows injected 3 (3 with 3 troubled heartbeats sent or more), detections 3",
                 "heartbeat -> decision", "cluster view read",
                 "[n/a] decision p99", *(["+ its ingest front"] if front else [])):
        assert line in text, line


def test_the_real_path_needs_ten_seconds():
    proc = _bench("--section", "real", "--servers", "4", "--seconds", "5")
    assert proc.returncode == 2 and "at least 10" in proc.stderr


def test_rack_sections_need_root(monkeypatch, capsys):
    from e3.cli.main import main

    monkeypatch.setattr(os, "geteuid", lambda: 1000)  # a user without root, whoever runs the tests
    for section in ("migration", "figure7", "decision,migration"):
        monkeypatch.setattr(sys, "argv", ["e3", "bench", "orchestrator", "--section", section, "--servers", "20"])
        with pytest.raises(SystemExit) as exited:
            main()
        assert exited.value.code == 1
        assert "needs root" in capsys.readouterr().err


def _move(source, target, total, stateful=True, service="kvs"):
    return {"source": source, "target": target, "stateful": stateful, "state": "succeeded", "end_to_end_ms": total,
            "steps": {"push": 50.0, "update_routes": 100.0}, "error": None, "service": service}


MIGRATION = {
    "section": "migration", "keys": 100_000, "target_ms": 500.0, "failover_target_s": 1.0, "paper": "steps of ...",
    "kvs": {"preload": {"keys": 100_000, "stored": 100_000, "failed": 0, "seconds": 4.0, "rate": 25_000.0},
            "move": _move("s00/host", "s02/host", 640.0),
            "load": {"throughput_rps": 2000.0, "p50_us": 500.0, "p99_us": 1500.0, "errors": 0, "timeouts": 3,
                     "seconds": 4.0, "connections": 2},
            "verified": {"sampled": 100, "found": 100},
            "nic_host": [_move("s00/host", "s00/nic0", 300.0, False, "nids")]},
    "failover": {"preload": {"stored": 100_000}, "victim": "s00/nic0", "backup": "s01/nic0", "gateway": "s01/host",
                 "serving_s": 0.5, "failed_probes": 9,
                 "seed": {"state": "succeeded", "target": "s02/nic0", "steps": {"copy_state": 120.0},
                          "done_after_kill_s": 1.2, "copied": {"sampled": 100, "found": 100}},
                 "timeline": [{"kind": "node.down", "after_kill_ms": 260.0}]},
}


def _phase(node, rps, p99_us, watts, detection=None):
    return {"throughput_rps": rps, "p50_us": p99_us / 5, "p99_us": p99_us, "errors": 0, "timeouts": 0,
            "entry": node, "entry_kind": "smartnic" if "nic" in node else "host", "watts": watts,
            "energy_source": "model", "joules_per_request": watts / rps,
            "queue": {"heartbeats": 160, "max": 50, "median": 40, "at_least_32": 100},
            "first_detection": detection or {"trouble": None}, "decided": detection is not None,
            "events": [{"kind": "orchestrator.detection", "trouble": "overload", "after_s": 0.6}] if detection else []}


DETECTION = {"trouble": "host_starvation", "after_load_s": 0.6, "queue_from_s": 0.45, "heartbeats_after_queue": 3.0}
FIGURE7 = {"section": "figure7", "seconds": 8, "connections": 64, "energy_source": "model", "paper": "the paper ...",
           "forced": {"node": "s00/nic0"},
           "before": _phase("s00/nic0", 10_000.0, 30_000.0, 344.0, DETECTION),
           "after": _phase("s00/host", 25_000.0, 5_000.0, 343.0),
           "switch": {"runtime_switch": True, "manual_migration": None, "switched_after_load_s": 1.0,
                      "load": {"throughput_rps": 5000.0, "errors": 0, "timeouts": 10},
                      "detection_s": 0.2, "decision_s": 0.3, "migrated_s": 1.1,
                      "migration_outcome": "migration.succeeded", "detection": DETECTION}}


def test_rack_reports_show_targets_ratios_and_the_energy_source():
    text = render({"migration": MIGRATION, "figure7": FIGURE7})
    assert "[NOT met] 100,000-key kvs migration <= 500 ms end to end: 640 ms (x1.28 the target)" in text
    assert "[met] backup serving within 1 s of the kill: 0.50 s" in text
    assert "nids" in text and "stateless" in text and "keys in the copy 100/100" in text
    assert "energy: model (not measured)" in text and "mJ/req (model)" in text
    assert "host_starvation 0.60 s after the load started" in text and "3 heartbeats before the detection" in text
    assert "the paper's direction." in text  # J/request and p99 both lower after the move
    FIGURE7["after"] = _phase("s00/host", 5_000.0, 50_000.0, 343.0)
    assert "NOT the paper's direction" in render({"figure7": FIGURE7})
