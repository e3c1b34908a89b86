"""`e3 bench metrics` at a tiny scale: a real `e3 api`, Postgres and Redis started and stopped by the benchmark;
the series it times are the ledger it built, gzip and plain."""

import json
import os
import subprocess
import sys

from helpers import process_alive


def test_tiny_run_times_both_encodings_and_leaves_nothing_behind():
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "metrics", "--nodes", "30", "--instances", "60",
                           "--requests", "5", "--json"], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    # 10 hosts x 2 sources + 20 SmartNICs x 1 joules series, 30 watts, 60 x (joules + requests), heartbeats
    assert r["series"] == 10 * 2 + 20 + 30 + 60 * 2 + 1
    gzip, plain = r["scrapes"]["gzip"], r["scrapes"]["identity"]
    assert gzip["requests"] == plain["requests"] == 5
    assert plain["response_bytes"] > r["controller_bytes"] > gzip["response_bytes"] > 0  # the API's own part too
    assert 0 < gzip["p50_ms"] <= gzip["p99_ms"] and r["render_ms"] > 0 and r["prometheus_client_ms"] > 0
    assert not process_alive(r["api_pid"]) and not os.path.exists(r["workdir"])


def test_text_report_prints_figures_and_the_target():
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "metrics", "--nodes", "3", "--instances", "3",
                           "--requests", "2"], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    for text in ("GET /metrics with 3 nodes and 3 instances", "Accept-Encoding gzip", "Accept-Encoding identity",
                 "prometheus_client", "/metrics p99 <= 50 ms"):
        assert text in proc.stdout, text
