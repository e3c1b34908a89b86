"""`e3 bench rack`'s report on given figures, and its refusal of unknown sections (the runs themselves
need root and minutes: `make bench-dataplane`)."""

import subprocess
import sys

from e3.bench.rack_report import render

ECMP = {"section": "ecmp", "connections": 2000, "answered": 2000, "per_nic": [499, 490, 476, 536],
        "spread": 0.072, "target": 0.15,
        "after_kill": {"answered": 1990, "per_nic": [0, 643, 656, 701], "spread_over_survivors": 0.052}}
NFV = {"section": "nfv-fin", "seconds": 8, "connections": 16, "energy_source": "model",
       "hcm": {"throughput_rps": 6000.0, "p99_us": 900.0, "errors": 0, "timeouts": 0, "watts": 300.0,
               "joules_per_request": 0.05, "on_nics": 70, "instances": 72},
       "hosts": {"throughput_rps": 3000.0, "p99_us": 800.0, "errors": 0, "timeouts": 0, "watts": 300.0,
                 "joules_per_request": 0.1, "on_nics": 0, "instances": 72}}


def test_the_report_gives_the_spread_against_the_target_and_the_ratios():
    text = render([ECMP, NFV])
    assert "per NIC: 499, 490, 476, 536" in text and "7.2%  (within the ±15.0% target)" in text
    assert "after SIGKILL of nic0: per NIC 0, 643, 656, 701, answered 1990/2000" in text
    assert "throughput x2.00, joules per request x0.50" in text
    assert "energy: model (not measured)" in text
    outside = render([dict(ECMP, spread=0.2)])
    assert "OUTSIDE the ±15.0% target" in outside


def test_an_unknown_section_is_refused():
    done = subprocess.run([sys.executable, "-m", "e3", "bench", "rack", "--sections", "ecmp,warp"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--sections: warp; use ecmp, nfv-fin" in done.stderr + done.stdout
