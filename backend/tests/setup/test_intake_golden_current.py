"""The C++ front intake's golden fixture is what the Python intake gives today.

agents/e3-ingest's test_front_intake checks the C++ intake (src/front_intake.cc) against
agents/e3-ingest/tests/golden/intake.json; this checks that fixture against e3.controller.intake_golden, i.e.
against the real controller.heartbeat_intake with its energy ledger and rollups. A change to the intake's rules
or encodings fails here until the fixture is regenerated, and then the C++ test until the port follows."""

from pathlib import Path

from helpers import assert_generated_current

from e3.controller import intake_golden as golden

REPO = Path(__file__).resolve().parents[3]
FIXTURE = REPO / golden.FIXTURE
REGENERATE = (f"cd backend && python -m e3.controller.intake_golden ../{golden.FIXTURE}, then carry the change to "
              "agents/e3-ingest/src/front_intake.cc until `ctest -R front_intake` passes")


def test_fixture_is_current():
    assert_generated_current(FIXTURE, golden.golden_text(), "e3.controller.intake_golden", REGENERATE)


def test_fixture_is_small():
    """Checked in: it stays under 400 KB."""
    assert FIXTURE.stat().st_size < 400_000
