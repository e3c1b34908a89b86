"""`e3 bench agent`, shortened: a real e3-agent heartbeats to a real controller; its CPU and the heartbeats
stored are reported per step, and bad steps are refused."""

import json
import subprocess
import sys


def test_a_short_run_reports_cpu_and_the_heartbeats_stored_for_each_step():
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "agent", "--seconds", "2", "--period-ms", "100",
                           "--instances", "0,2", "--json"], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert [s["instances"] for s in r["steps"]] == [0, 2]
    for step in r["steps"]:
        assert 5 <= step["heartbeats_per_s"] <= 15  # one every 100 ms, stored by the controller
        assert step["cpu_pct"] >= 0 and step["cpu_vs_target"] == round(step["cpu_pct"] / r["target_cpu_pct"], 3)
    assert "registered" in r["agent"]


def test_bad_steps_are_refused_before_anything_starts():
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "agent", "--instances", "two"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--instances" in proc.stderr
