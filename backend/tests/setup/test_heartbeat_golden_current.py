"""The C++ quick heartbeat check's generated inputs are what the Python controller gives today.

agents/e3-ingest's e3ingest_check (src/heartbeat_check.cc) takes its bounds from src/heartbeat_bounds.h and is
tested against tests/golden/heartbeats.txt; both are checked in, written by e3.heartbeat_bounds and
e3.heartbeat_golden from e3.heartbeat_record, services.agents and controller.heartbeat_intake. A change of a
bound or a rule there fails here until both files are regenerated (and then the C++ test, should the check
itself have to change)."""

from pathlib import Path

import pytest
from helpers import assert_generated_current

from e3 import heartbeat_bounds, heartbeat_golden
from e3.heartbeat_record import INSTANCE_FIELDS, NODE_FIELDS

REPO = Path(__file__).resolve().parents[3]
REGENERATE = (f"cd backend && {heartbeat_bounds.COMMAND} && {heartbeat_golden.COMMAND}, then "
              "`ctest -R heartbeat_check` in the agents' build (agents/e3-ingest/src/heartbeat_check.cc must pass it)")


def _same(path: str, regenerated: str, what: str) -> None:
    assert_generated_current(REPO / path, regenerated, what, REGENERATE)


def test_header_is_current():
    _same(heartbeat_bounds.HEADER, heartbeat_bounds.header(), "python -m e3.heartbeat_bounds")


def test_corpus_is_current():
    _same(heartbeat_golden.FIXTURE, heartbeat_golden.corpus(), "python -m e3.heartbeat_golden")


def test_header_checks_every_field():
    """Every record field has its predicate in its group's fields_ok, so a field added to heartbeat_record is
    checked by the front once the header is regenerated."""
    text = heartbeat_bounds.header()
    for group, fields, var in (("node", NODE_FIELDS, "hb"), ("instance", INSTANCE_FIELDS, "inst")):
        body = text.split(f"namespace {group} {{", 1)[1].split("fields_ok(", 1)[1].split("}", 1)[0]
        for f in fields:
            assert f"{f.proto}_ok({var}.{f.proto}())" in body, f"{group}::fields_ok does not check {f.proto}"


def test_header_refuses_a_kind_it_cannot_write(monkeypatch):
    """A kind the generator does not know fails generation instead of leaving a field unchecked in C++."""
    from e3.heartbeat_record import RecordField, _Kind

    class Odd(_Kind):
        type, missing = str, ""

        def problem(self, value):
            return None

        def quick(self, var):
            return "True"

    odd = RecordField("odd", "odd", Odd(), "-", "a field of an unknown kind")
    monkeypatch.setattr(heartbeat_bounds, "NODE_FIELDS", (*NODE_FIELDS, odd))
    with pytest.raises(TypeError, match="does not know"):
        heartbeat_bounds.header()


def test_corpus_exercises_every_outcome():
    """Both quick verdicts, refusals, and non-ASCII ids Python's quick check passes (which the C++ check
    doubts); and, as the corpus is built, never a quick pass with a problem."""
    rows = [line.split(" ", 4) for line in heartbeat_golden.corpus().splitlines() if not line.startswith("#")]
    quick = [row[2] for row in rows]
    assert len(rows) >= 300 and {"0", "1"} <= set(quick)
    assert any(row[4] != "null" for row in rows)
    assert not [row[0] for row in rows if row[2] == "1" and row[4] != "null"]
    assert any(row[0].startswith("id.unicode") and row[2] == "1" for row in rows)
