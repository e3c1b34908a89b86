"""The heartbeat bounds as a C++ header, for the compiled ingest front (agents/e3-ingest/src/heartbeat_bounds.h).

The front checks each Heartbeat with the controller's quick check before anything else
(docs/controller-scale-out.md, section 2: "The validation bounds are not written twice"). So that no bound is
written by hand in C++, this module writes them from their one definition: each field's bounds from
e3.heartbeat_record (NODE_FIELDS, INSTANCE_FIELDS, by kind), the heartbeat's own limits from
services.agents (MAX_AGE_S, MAX_CLOCK_AHEAD_S, MAX_INSTANCES_PER_HEARTBEAT, MAX_ID_CHARS) and the quick
check's timestamp margin from controller.heartbeat_intake (`_MARGIN_NS`, `_NS`).

Per field the header has its bound constants, named from its proto name (node::QUEUE_LENGTH_MAX,
instance::CPU_SHARE_HIGH, ...), and a predicate `<proto name>_ok(value)` that is the kind's `quick`
expression in C++; then `node::fields_ok(hb)` and `instance::fields_ok(inst)`, the conjunction over every
field (heartbeat_record.quick_check), as templates over the message type, so the header needs no protobuf
include and a field added to heartbeat_record is checked by the front once the header is regenerated. A kind
this module does not know is an error here, never a field left unchecked in C++.

The reason for a refusal stays agents.heartbeat_problem's: the header only says whether the quick check
passes. agents/e3-ingest/src/heartbeat_check.cc adds the timestamp window, the instance count and the ids
(ASCII-printable; see there), and tests/setup/test_heartbeat_golden_current.py fails when the checked-in
header is not what this module writes now.

Regenerate (from backend/): python -m e3.heartbeat_bounds ../agents/e3-ingest/src/heartbeat_bounds.h
"""

import math
import sys
from collections.abc import Sequence

from e3.controller import heartbeat_intake
from e3.generated_files import write_main
from e3.heartbeat_record import INSTANCE_FIELDS, NODE_FIELDS, Choice, Count, Number, RecordField
from e3.services import agents

HEADER = "agents/e3-ingest/src/heartbeat_bounds.h"  # from the repository's root
COMMAND = "python -m e3.heartbeat_bounds ../agents/e3-ingest/src/heartbeat_bounds.h"  # from backend/
_UINT64_MAX = 2**64 - 1


def _double(value: float) -> str:
    """A C++ expression for the double `value`, exactly (repr is the shortest text that reads back the same,
    and a valid C++ literal once it has a '.' or an exponent)."""
    if math.isnan(value):
        raise ValueError("a bound cannot be NaN")
    if math.isinf(value):
        return ("-" if value < 0 else "") + "std::numeric_limits<double>::infinity()"
    text = repr(float(value))
    return text if any(c in text for c in ".eE") else text + ".0"


def _integer(name: str, value) -> int:
    """`value` as an int, refusing what the C++ constant could not hold exactly."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} = {value!r}: the C++ check needs an integer")
    return value


def _predicate(signature: str, condition: str) -> list[str]:
    """An inline C++ predicate returning `condition`: one line, or its body on the next when that is too long."""
    line = f"inline constexpr bool {signature} {{ return {condition}; }}"
    if len(line) <= 120:
        return [line]
    return [f"inline constexpr bool {signature} {{", f"    return {condition};", "}"]


def _field(f: RecordField) -> list[str]:
    """The C++ lines for one field: its bound constants and its predicate, the kind's `quick` expression."""
    upper, var = f.proto.upper(), "v"
    kind = f.kind
    lines = [f"// {f.proto}, {f.unit}: {type(kind).__name__}; Python's quick check: {kind.quick(var)}"]
    if isinstance(kind, Count):
        if not 0 <= kind.max <= _UINT64_MAX:
            raise ValueError(f"{f.proto}: maximum {kind.max} does not fit the uint64_t the C++ check compares in")
        lines += [f"inline constexpr uint64_t {upper}_MAX = UINT64_C({kind.max});",
                  *_predicate(f"{f.proto}_ok(uint64_t {var})", f"{var} <= {upper}_MAX")]
    elif isinstance(kind, Number):
        lines += [f"inline constexpr double {upper}_LOW = {_double(kind.low)};",
                  f"inline constexpr double {upper}_HIGH = {_double(kind.high)};"]
        # as Number.quick: an infinite upper bound is exclusive (it keeps infinity out), a finite one inclusive;
        # NaN fails every comparison
        high = "<" if kind.high == math.inf else "<="
        lines += _predicate(f"{f.proto}_ok(double {var})", f"{upper}_LOW <= {var} && {var} {high} {upper}_HIGH")
    elif isinstance(kind, Choice):
        names = ", ".join(f'"{n}"' for n in kind.names)
        lines += [f"// value k names {upper}_NAMES[k - 1]; 0 (unspecified) and unknown values are refused",
                  f"inline constexpr int {upper}_FIRST = 1;",
                  f"inline constexpr int {upper}_LAST = {len(kind.names)};",
                  f"inline constexpr const char *{upper}_NAMES[] = {{{names}}};",
                  *_predicate(f"{f.proto}_ok(int {var})", f"{upper}_FIRST <= {var} && {var} <= {upper}_LAST")]
    else:
        raise TypeError(f"{f.proto}: e3.heartbeat_bounds does not know how to check a {type(kind).__name__} in "
                        "C++; teach it (and agents/e3-ingest) before using that kind")
    return lines


def _group(namespace: str, message: str, fields: Sequence[RecordField], var: str) -> list[str]:
    """A namespace with each field's constants and predicate, and `fields_ok`: all of them on one message."""
    title = f"// ---- {namespace}: the {message} fields (heartbeat_record.{namespace.upper()}_FIELDS) "
    out = [title.ljust(110, "-"), f"namespace {namespace} {{", ""]
    for f in fields:
        out += _field(f) + [""]
    checks = [f"{f.proto}_ok({var}.{f.proto}())" for f in fields]
    out.append(f"// Every {message} field within its bounds: quick_check({namespace.upper()}_FIELDS) on `{var}`.")
    out.append(f"template <class {message}> inline bool fields_ok(const {message} &{var}) {{")
    body = "    return "
    for i, check in enumerate(checks):
        piece = check + (";" if i == len(checks) - 1 else " &&")
        if len(body) + len(piece) + 1 > 116 and not body.endswith("return "):
            out.append(body.rstrip())
            body = "           "
        body += piece + " "
    out += [body.rstrip(), "}", "", f"}} // namespace {namespace}", ""]
    return out


def _ascii_printable() -> tuple[int, int]:
    """The ASCII characters Python's str.isprintable() accepts, as one range (first, last)."""
    codes = [c for c in range(128) if chr(c).isprintable()]
    if codes != list(range(codes[0], codes[-1] + 1)):
        raise ValueError("Python's printable ASCII is no longer one range")
    return codes[0], codes[-1]


def header() -> str:
    """The text of agents/e3-ingest/src/heartbeat_bounds.h."""
    max_age = _integer("agents.MAX_AGE_S", agents.MAX_AGE_S)
    ahead = _integer("agents.MAX_CLOCK_AHEAD_S", agents.MAX_CLOCK_AHEAD_S)
    instances = _integer("agents.MAX_INSTANCES_PER_HEARTBEAT", agents.MAX_INSTANCES_PER_HEARTBEAT)
    id_chars = _integer("agents.MAX_ID_CHARS", agents.MAX_ID_CHARS)
    ns = _integer("heartbeat_intake._NS", heartbeat_intake._NS)
    margin = _integer("heartbeat_intake._MARGIN_NS", heartbeat_intake._MARGIN_NS)
    if heartbeat_intake._MAX_INSTANCES != instances or heartbeat_intake._MAX_ID != id_chars:
        raise ValueError("heartbeat_intake's _MAX_INSTANCES / _MAX_ID are no longer services.agents' limits")
    first, last = _ascii_printable()
    lines = [
        "// SPDX-License-Identifier: Apache-2.0",
        "//",
        "// generated by python -m e3.heartbeat_bounds; do not edit",
        f"// (regenerate from backend/: {COMMAND})",
        "//",
        "// The bounds the Python controller checks a Heartbeat against, from their one definition:",
        "// backend/e3/heartbeat_record.py (the fields), backend/e3/services/agents.py (heartbeat_problem's",
        "// limits) and backend/e3/controller/heartbeat_intake.py (the quick check's timestamp margin). Each field's",
        "// predicate is its kind's quick expression; src/heartbeat_check.cc adds the timestamp window, the",
        "// instance count and the instance ids.",
        "#ifndef E3_INGEST_HEARTBEAT_BOUNDS_H",
        "#define E3_INGEST_HEARTBEAT_BOUNDS_H",
        "",
        "#include <cstdint>",
        "#include <limits>",
        "",
        "namespace ingest::heartbeat_bounds {",
        "",
        "// heartbeat_problem's limits (services.agents)",
        f"inline constexpr int64_t MAX_AGE_S = {max_age};",
        f"inline constexpr int64_t MAX_CLOCK_AHEAD_S = {ahead};",
        f"inline constexpr int MAX_INSTANCES_PER_HEARTBEAT = {instances};",
        f"inline constexpr int MAX_ID_CHARS = {id_chars}; // code points (Python's len)",
        "",
        "// The quick check's timestamp window (heartbeat_intake): lo_ns < ts < hi_ns with",
        "// lo_ns = wall_ns - QUICK_BEHIND_NS and hi_ns = wall_ns + QUICK_AHEAD_NS, 1 ms inside heartbeat_problem's.",
        f"inline constexpr int64_t NS_PER_S = {ns};",
        f"inline constexpr int64_t QUICK_MARGIN_NS = {margin};",
        "inline constexpr int64_t QUICK_BEHIND_NS = MAX_AGE_S * NS_PER_S - QUICK_MARGIN_NS;",
        "inline constexpr int64_t QUICK_AHEAD_NS = MAX_CLOCK_AHEAD_S * NS_PER_S - QUICK_MARGIN_NS;",
        "",
        "// The ASCII characters Python's str.isprintable() accepts: one range.",
        f"inline constexpr unsigned char ID_ASCII_PRINTABLE_FIRST = 0x{first:02X};",
        f"inline constexpr unsigned char ID_ASCII_PRINTABLE_LAST = 0x{last:02X};",
        "",
        *_group("node", "Heartbeat", NODE_FIELDS, "hb"),
        *_group("instance", "InstanceStats", INSTANCE_FIELDS, "inst"),
        "} // namespace ingest::heartbeat_bounds",
        "",
        "#endif",
    ]
    too_long = [line for line in lines if len(line) > 120]
    if too_long:
        raise ValueError(f"generated lines over 120 characters: {too_long}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the header to the path given (argv[0]); usage on a wrong argument count."""
    return write_main(argv, COMMAND, header)


if __name__ == "__main__":
    sys.exit(main())
