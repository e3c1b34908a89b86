"""The C++ rollup steps' golden fixture is what the Python reference gives today.

agents/e3-ingest's test_rollup_steps checks the C++ port (src/rollup_steps.cc) against
agents/e3-ingest/tests/golden/rollup_steps.json; this checks that fixture against e3.services.rollup_golden,
i.e. against the real e3.rollup.steps, e3.energy.ledger and telemetry_rollups. A change to those rules fails here
until the fixture is regenerated, and then the C++ test until the port follows."""

from pathlib import Path

from e3.services import rollup_golden as golden

REPO = Path(__file__).resolve().parents[3]
FIXTURE = REPO / golden.FIXTURE
REGENERATE = (f"cd backend && python -m e3.services.rollup_golden ../{golden.FIXTURE}, then carry the change to "
              "agents/e3-ingest/src/rollup_steps.cc until `ctest -R rollup_steps` passes")


def test_fixture_is_current():
    assert FIXTURE.is_file(), f"{FIXTURE} is missing; make it: {REGENERATE}"
    current = FIXTURE.read_text(encoding="utf-8")
    regenerated = golden.golden_text()
    if current != regenerated:
        old, new = current.splitlines(), regenerated.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        raise AssertionError(f"{golden.FIXTURE} is not what e3.services.rollup_golden gives now (first difference "
                             f"at line {first + 1}): the Python rollup or energy-interval rules changed. "
                             f"Regenerate it: {REGENERATE}")


def test_golden_case_is_deterministic():
    """A case depends on its seed only (no hash order, no clock), or the fixture check above would flap."""
    assert golden.golden_case(5) == golden.golden_case(5)
