"""`e3 bench ingest` at a tiny scale: real controller, Postgres and Redis started and stopped by the benchmark."""

import json
import os
import subprocess
import sys

import pytest

from helpers import REPO_ROOT, process_alive

KEYS = ("servers", "nodes", "seconds", "offered_hz", "ingested_hz", "loss", "controller_cpu_pct", "loadgen_cpu_pct",
        "rollup_heartbeats_per_s", "lag_redis_p50_ms", "lag_redis_p99_ms", "rollup_lag_p50_ms", "rollup_lag_p99_ms",
        "rollup_lag_bound_p50_ms", "rollup_lag_bound_p99_ms")


def test_tiny_run_loses_nothing_and_leaves_nothing_behind():
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "ingest", "--servers", "2", "--seconds", "2",
                           "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    for key in KEYS:
        assert key in r, key
    assert r["servers"] == 2 and r["nodes"] == 10
    assert r["loadgen"] == "native" and r["stream_errors"] == []  # make test builds e3-heartbeat-load: auto uses it
    # zero loss at this scale: every heartbeat sent is accepted and counted in the rollups
    assert r["sent"] > 0 and r["sent"] == r["accepted"] == r["rollup_heartbeats"]
    assert r["loss"] == 0 and r["zero_loss"] is True and r["rejected"] == 0
    assert r["lag_redis_samples"] > 0 and r["rollup_lag_samples"] > 0
    # the oldest heartbeat a rollup write brought waited at least as long as its newest
    assert 0 <= r["rollup_lag_p50_ms"] <= r["rollup_lag_bound_p50_ms"]
    assert r["rollup_lag_p99_ms"] <= r["rollup_lag_bound_p99_ms"]
    per_hz = r["cpu_pct_per_100k_hz"]  # CPU per 100,000 heartbeats/s: some CPU over few heartbeats is a lot
    assert set(per_hz) == {"controller", "postgres", "redis"} and per_hz["controller"] > 0
    # bytes written per heartbeat: more than its 2 instances' ids (36-character UUIDs), far less than a kilobyte
    assert 2 * 36 < r["wire_bytes_per_heartbeat"] < 1000
    assert set(r["pids"]) == {"controller", "postgres", "redis"}
    left = {name: pid for name, pid in r["pids"].items() if process_alive(pid)}
    assert not left, f"still running: {left}"
    assert not os.path.exists(r["workdir"])
    energy = r["energy_accounting"]  # the intake with and without the energy ledger, on the same heartbeats
    assert energy["nodes"] == 10 and energy["heartbeats_per_round"] == 10 * 199  # the first of each warms the caches
    assert energy["accept_with_ledger_us"] > 0 and energy["close_us"] > 0
    # each figure is rounded to 0.001 us on its own, so the parts' sum may differ from the total by one unit
    assert energy["total_us"] == pytest.approx(energy["ledger_add_us"] + energy["close_us"], abs=0.0011)
    assert energy["target_us"] == 2.0


def test_text_report_prints_figures_and_targets():
    """With the Python generator streaming (the one --kill-after needs)."""
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "ingest", "--servers", "1", "--seconds", "1",
                           "--period-ms", "100", "--loadgen", "python"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for text in ("offered (sent)", "ingested (accepted)", "lag send -> Redis", "rollups lag", "in rollups",
                 "CPU per 100,000 heartbeats/s", "Targets", "100,000", "rollups lag p99 <= 2,000 ms",
                 "ledger on the hot path", "attribution and rollups <= 2 µs/heartbeat"):
        assert text in proc.stdout, text


def test_tiny_run_behind_the_ingest_front_loses_nothing_and_reports_its_cpu():
    ingest = REPO_ROOT / "build/agents/e3-ingest/e3-ingest"
    if not ingest.is_file():
        pytest.fail(f"{ingest} is missing: `make test` builds it (make agents)")
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "ingest", "--servers", "2", "--seconds", "2",
                           "--front", "--json"], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, E3_INGEST_BIN=str(ingest)))
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["front"] is True and r["front_cpu_pct"] is not None  # a few hundred heartbeats: maybe 0.0
    assert r["sent"] > 0 and r["sent"] == r["accepted"] == r["rollup_heartbeats"]
    assert set(r["pids"]) == {"controller", "front", "postgres", "redis"}
    left = {name: pid for name, pid in r["pids"].items() if process_alive(pid)}
    assert not left, f"still running: {left}"


@pytest.mark.parametrize("front", [False, True], ids=["python", "behind-fronts"])
def test_two_controllers_one_killed_its_nodes_move_and_what_was_lost_is_counted(front):
    """Behind their fronts too: the killed controller's front dies with it, and the figures still come."""
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "ingest", "--servers", "2", "--seconds", "3",
                           "--workers", "2", "--controllers", "2", "--kill-after", "1", "--json",
                           *(["--front"] if front else [])], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    fronts = {"front", "front-2"} if front else set()
    assert r["controllers"] == 2 and set(r["pids"]) == {"controller", "controller-2", "postgres", "redis", *fronts}
    assert (r["front_cpu_pct"] is not None) is front
    # worker 0's agent (5 nodes) streamed to the killed controller, and went on at the other
    assert r["moved_nodes"] == r["resumed_nodes"] == 5 and r["moved_streams"] == 1 and 0 < r["move_s_max"] < 3
    assert r["unconfirmed"] > 0  # sent to the killed one: no summary
    # every heartbeat is in the rollups, but those the killed controller held unwritten (up to a flush's worth)
    assert 0 <= r["loss"] <= r["unconfirmed"]
    left = {name: pid for name, pid in r["pids"].items() if process_alive(pid)}
    assert not left, f"still running: {left}"


def test_kill_after_without_a_second_controller_is_refused():
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "ingest", "--kill-after", "1"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--kill-after needs --controllers 2 or more" in proc.stderr


def test_native_generator_with_kill_after_and_an_unknown_generator_are_refused():
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "ingest", "--controllers", "2", "--kill-after", "1",
                           "--loadgen", "native"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--kill-after needs the python load generator" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "ingest", "--loadgen", "rust"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "loadgen must be one of auto, native, python, not 'rust'" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "e3", "bench", "ingest", "--loadgen", "native"], capture_output=True,
                          text=True, timeout=60, env=dict(os.environ, E3_HEARTBEAT_LOAD_BIN="/nonexistent/e3-hl"))
    assert proc.returncode == 2 and "e3-heartbeat-load is not built" in proc.stderr  # before anything starts
