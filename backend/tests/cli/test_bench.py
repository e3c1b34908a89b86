"""`e3 bench placement` on a small scale: the figures and ratios a user reads, in text and JSON."""

import json
import subprocess
import sys


def _bench(*args):
    return subprocess.run([sys.executable, "-m", "e3", "bench", "placement", *args], capture_output=True,
                          text=True, timeout=600)


def test_json_has_one_object_per_scale_or_app_and_algorithm():
    proc = _bench("--servers", "10,20", "--microservices", "300", "--algorithms", "hcm,first_fit", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    scale = [r for r in rows if r["kind"] == "scale"]
    apps = [r for r in rows if r["kind"] == "app"]
    assert {(r["servers"], r["algorithm"]) for r in scale} == {(10, "hcm"), (10, "first_fit"), (20, "hcm"),
                                                                (20, "first_fit")}
    assert {r["app"] for r in apps} == {"nfv-fin", "nfv-din", "nfv-ifid", "rta-ptc", "rta-sf", "rta-shm",
                                        "iot-dh", "iot-ts"}
    assert all("error" not in r for r in rows if r["algorithm"] == "hcm")
    for r in rows:
        if "error" in r:  # e.g. first-fit cannot pack IOT-DH onto 3 servers: a row that says so
            assert "out of" in r["error"] or "replicas" in r["error"]
            continue
        for key in ("servers", "app", "algorithm", "ms_per_microservice", "predicted_rpj", "predicted_latency_ms",
                    "peak_rss_mb"):
            assert key in r, (key, r)
        assert r["source"]["rpj"] == "model"


def test_text_report_prints_paper_figures_ratios_and_targets():
    proc = _bench("--servers", "100", "--microservices", "200", "--algorithms", "hcm,annealing", "--no-apps")
    assert proc.returncode == 0, proc.stderr
    assert "4.85" in proc.stdout and "3.15" in proc.stdout  # paper Table 6 at 100 servers
    assert "HCM/annealing" in proc.stdout and "Targets" in proc.stdout


def test_bad_arguments_are_refused():
    proc = _bench("--servers", "ten")
    assert proc.returncode == 2 and "--servers" in proc.stderr
    proc = _bench("--algorithms", "hcm,magic")
    assert proc.returncode == 2 and "magic" in proc.stderr
