"""The C++ detector's golden fixture is what the Python detector gives today.

agents/e3-ingest's test_detector checks the C++ port (src/detector.cc) against
agents/e3-ingest/tests/golden/detection.json; this checks that fixture against e3.orchestrator.detection_golden,
i.e. against the real e3.orchestrator.detection.Detector. A change to the detection rules fails here until the
fixture is regenerated, and then the C++ test until the port follows."""

import json
from pathlib import Path

from helpers import assert_generated_current

from e3.orchestrator import detection_golden as golden

REPO = Path(__file__).resolve().parents[3]
FIXTURE = REPO / golden.FIXTURE
REGENERATE = (f"cd backend && {golden.COMMAND}, then carry the change to agents/e3-ingest/src/detector.cc until "
              "`ctest -R e3ingest_test_detector` passes")


def test_fixture_is_current():
    assert_generated_current(FIXTURE, golden.golden_text(), "e3.orchestrator.detection_golden", REGENERATE)


def test_golden_case_is_deterministic():
    """A case depends on its seed only (no hash order, no clock), or the fixture check above would flap."""
    assert golden.golden_case(5) == golden.golden_case(5)
    assert golden.scripted_case() == golden.scripted_case()


def test_fixture_is_small():
    """Checked in: it stays under 800 KB."""
    assert FIXTURE.stat().st_size < 800_000


def test_every_case_detects_both_kinds():
    """The cases are worth replaying: each one reports both kinds of trouble."""
    cases = json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]
    for case in cases:
        kinds = {op["expect"]["kind"] for op in case["ops"] if op["op"] == "observe" and op["expect"]}
        assert kinds == {"host_starvation", "overload"}, case["name"]
