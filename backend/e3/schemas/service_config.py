"""Service configuration as data: a DAG node's `config` checked against its service's JSON Schema
(the catalogue's config_schemas/<service>.json), and the required keys a save fills in.

The agent hands a service its configuration as text ("k1=v1;k2=v2", parsed by libe3svc's
svc_config_* helpers), so the spec carries every value as a string; a schema types each key as
the C code reads it. "integer": decimal digits (an optional '-', no leading zeros: the C reads some
keys with strtol base 0, where "010" would be octal); "number": a decimal fraction with an optional
exponent, finite and not subnormal (strtod flags both, and the C then falls back to its default
without a word). Both fit the 64-byte buffer the C reads numbers through.

The schemas use a small subset of JSON Schema, checked here: an object of `properties` with
`required` keys and no others (`additionalProperties: false`); per key `type` (string, integer,
number), `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `pattern`
(anchored in the schema; ECMA-262 syntax that Python's `re` reads alike), and the annotations
`description`, `default` and `examples`. One extension, `x-e3-generate: {random_hex_bytes: n}`,
marks a secret the API generates at save when the user leaves it out (api_gateway's keys,
ipsec's keys).

A required key is always in a stored spec: written by the user, carried over from the node's
previous version, or filled at save from its `default` or generator (`fill_required`); a stored
spec therefore shows the exact configuration the agents receive. An optional key left out takes
the service's own default, which the schema's `default` states.
"""

import math
import re
import reprlib
import secrets
import sys
from functools import cache

from e3 import catalog
from e3.core.errors import FieldError

SCHEMA_KEYWORDS = {"$schema", "title", "description", "type", "properties", "required", "additionalProperties"}
PROPERTY_KEYWORDS = {"type", "description", "default", "examples", "minimum", "maximum", "exclusiveMinimum",
                     "exclusiveMaximum", "multipleOf", "pattern", "x-e3-generate"}
PROPERTY_TYPES = ("string", "integer", "number")
INTEGER_TEXT = re.compile(r"-?(0|[1-9][0-9]*)")
NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
NUMBER_MAX_CHARS = 63  # the C reads a number through a 64-byte buffer, NUL included


def schema_of(service: str) -> dict:
    """The JSON Schema of `service`'s configuration (KeyError for a service not in the catalogue)."""
    return catalog.service_types()[service].config_schema


@cache
def _pattern(pattern: str) -> re.Pattern:
    return re.compile(pattern)


def parse_value(prop: dict, text: str) -> tuple[object, str | None]:
    """(value, None) for `text` read as `prop`'s type, or (None, why it is not one)."""
    kind = prop["type"]
    if kind == "integer":
        if len(text) > NUMBER_MAX_CHARS or not INTEGER_TEXT.fullmatch(text):
            return None, f"must be an integer in decimal digits without leading zeros, got {reprlib.repr(text)}"
        return int(text), None
    if kind == "number":
        value = float(text) if len(text) <= NUMBER_MAX_CHARS and NUMBER_TEXT.fullmatch(text) else math.nan
        mantissa = re.split("[eE]", text)[0]
        underflow = 0 < abs(value) < sys.float_info.min or (value == 0 and re.search("[1-9]", mantissa))
        if not math.isfinite(value) or underflow:
            return None, f"must be a decimal number such as 0.5 or 1e3, got {reprlib.repr(text)}"
        return value, None
    return text, None


def _range_error(prop: dict, value: float, text: str) -> tuple[str, dict] | None:
    """(message, extra) when `value` (written `text`) breaks one of `prop`'s bounds, else None."""
    if "minimum" in prop and value < prop["minimum"]:
        return f"must be at least {prop['minimum']}, got {text}", {"min": prop["minimum"]}
    if "exclusiveMinimum" in prop and value <= prop["exclusiveMinimum"]:
        return f"must be greater than {prop['exclusiveMinimum']}, got {text}", {"min": prop["exclusiveMinimum"]}
    if "maximum" in prop and value > prop["maximum"]:
        return f"must be at most {prop['maximum']}, got {text}", {"max": prop["maximum"]}
    if "exclusiveMaximum" in prop and value >= prop["exclusiveMaximum"]:
        return f"must be less than {prop['exclusiveMaximum']}, got {text}", {"max": prop["exclusiveMaximum"]}
    if "multipleOf" in prop and value % prop["multipleOf"]:
        return f"must be a multiple of {prop['multipleOf']}, got {text}", {"multiple_of": prop["multipleOf"]}
    return None


def value_error(service: str, key: str, text: str, field: str) -> FieldError | None:
    """What is wrong with `text` as the value of `service`'s config key `key` (a known key), or None."""
    prop = schema_of(service)["properties"][key]
    value, why = parse_value(prop, text)
    if why:
        return FieldError(field, why, "wrong_type", {"type": prop["type"]})
    broken = _range_error(prop, value, text) if prop["type"] != "string" else None
    if broken:
        return FieldError(field, broken[0], "out_of_range", broken[1])
    if "pattern" in prop and not _pattern(prop["pattern"]).search(text):
        return FieldError(field, f"{reprlib.repr(text)} is not valid: {prop['description']}", "pattern_mismatch",
                          {"pattern": prop["pattern"]})
    return None


def config_errors(service: str, config: dict[str, str], path: str) -> list[FieldError]:
    """Every problem of `config` as `service`'s configuration, located under `path` (`spec.nodes[2].config`).

    A required key that is missing is not a problem when the schema fills it at save (`default` or
    `x-e3-generate`)."""
    schema = schema_of(service)
    props = schema["properties"]
    errors = []
    for key, text in config.items():
        if key not in props:
            valid = sorted(props)
            takes = f"its keys: {', '.join(valid)}" if valid else "it takes no configuration"
            errors.append(FieldError(f"{path}.{key}", f"unknown key {reprlib.repr(key)} for {service}; {takes}",
                                     "unknown_field", {"valid": valid}))
        elif error := value_error(service, key, text, f"{path}.{key}"):
            errors.append(error)
    for key in schema["required"]:
        if key not in config and not _fillable(props[key]):
            errors.append(FieldError(f"{path}.{key}", f"is required by {service}: {props[key]['description']}",
                                     "missing"))
    return errors


def _fillable(prop: dict) -> bool:
    return "default" in prop or "x-e3-generate" in prop


def _filled_value(prop: dict) -> str:
    generate = prop.get("x-e3-generate")
    if generate:
        return secrets.token_hex(generate["random_hex_bytes"])
    return str(prop["default"])


def fill_required(service: str, config: dict[str, str], previous: dict[str, str] | None = None) -> dict[str, str]:
    """`config` with every required key it lacks: the value in `previous` (the same node's config in the
    version before, so a generated key stays what it was when a document that leaves it out is
    applied again), else the schema's `default`, else a generated one."""
    schema = schema_of(service)
    out = dict(config)
    for key in schema["required"]:
        if key not in out and _fillable(schema["properties"][key]):
            out[key] = (previous or {}).get(key) or _filled_value(schema["properties"][key])
    return out
