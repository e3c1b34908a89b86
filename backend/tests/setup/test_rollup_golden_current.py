"""The C++ rollup steps' golden fixture is what the Python reference gives today.

agents/e3-ingest's test_rollup_steps checks the C++ port (src/rollup_steps.cc) against
agents/e3-ingest/tests/golden/rollup_steps.json; this checks that fixture against e3.services.rollup_golden,
i.e. against the real e3.rollup.steps, e3.energy.ledger and telemetry_rollups. A change to those rules fails here
until the fixture is regenerated, and then the C++ test until the port follows."""

from pathlib import Path

from helpers import assert_generated_current

from e3.services import rollup_golden as golden

REPO = Path(__file__).resolve().parents[3]
FIXTURE = REPO / golden.FIXTURE
REGENERATE = (f"cd backend && python -m e3.services.rollup_golden ../{golden.FIXTURE}, then carry the change to "
              "agents/e3-ingest/src/rollup_steps.cc until `ctest -R rollup_steps` passes")


def test_fixture_is_current():
    assert_generated_current(FIXTURE, golden.golden_text(), "e3.services.rollup_golden", REGENERATE)


def test_golden_case_is_deterministic():
    """A case depends on its seed only (no hash order, no clock), or the fixture check above would flap."""
    assert golden.golden_case(5) == golden.golden_case(5)
