"""`e3 bench api` at a tiny scale: a real `e3 api`, Postgres and Redis started and stopped by the benchmark."""

import json
import os
import subprocess
import sys

from helpers import process_alive

TINY = ["--seconds", "1", "--rate", "20", "--overload-rate", "40", "--in-flight", "30"]


def test_tiny_run_answers_every_request_and_leaves_nothing_behind():
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "api", *TINY, "--json"], capture_output=True,
                          text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    steady, overload, burst = (r["sections"][name] for name in ("steady", "overload", "burst"))
    assert steady["requests"] == 20 and overload["requests"] == 40
    for section, sent in ((steady, 20), (overload, 40), (burst, 30)):
        assert sum(section["counts"].values()) == sent, section  # every request has an outcome
        assert section["hangs"] == 0 and section["errors"] == 0, section
        assert set(section["counts"]) <= {"200", "201", "503"}, section
    left = {name: pid for name, pid in r["pids"].items() if process_alive(pid)}
    assert not left, f"still running: {left}"
    assert not os.path.exists(r["workdir"])


def test_text_report_prints_figures_and_targets():
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "api", *TINY], capture_output=True, text=True,
                          timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "steady: 20 reads offered at 20/s" in proc.stdout
    assert "read p99 at 20/s <= 25 ms" in proc.stdout and "hangs up to 30 in flight: 0" in proc.stdout
