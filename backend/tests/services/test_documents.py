"""Request bodies: JSON and YAML read the same, and hostile bodies are refused cheaply and clearly."""

import json
import time

import pytest
import yaml

from e3 import catalog
from e3.core.errors import BadRequest, PayloadTooLarge, UnsupportedMediaType
from e3.schemas.documents import MAX_BODY_BYTES, MAX_DEPTH, dump_yaml, json_depth_exceeds, parse_document

YAML = "application/yaml"


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: parsing is pure and needs no database."""


def refused(raw: bytes, content_type: str | None = "application/json", kind=BadRequest) -> dict:
    with pytest.raises(kind) as info:
        parse_document(raw, content_type)
    return info.value.body()


# --- content types ---------------------------------------------------------------------------

@pytest.mark.parametrize("content_type", [None, "", "application/json", "application/json; charset=utf-8",
                                          "Application/JSON", "application/merge-patch+json"])
def test_json_content_types(content_type):
    assert parse_document(b'{"a": [1, 2.5, "x", true, null]}', content_type) == {"a": [1, 2.5, "x", True, None]}


@pytest.mark.parametrize("content_type", ["application/yaml", "application/x-yaml", "text/yaml",
                                          "text/yaml; charset=UTF-8"])
def test_yaml_content_types(content_type):
    assert parse_document(b"a:\n  - 1\n  - x\n", content_type) == {"a": [1, "x"]}


def test_other_content_types_name_the_accepted_ones():
    body = refused(b"a=1", "application/x-www-form-urlencoded", UnsupportedMediaType)
    assert body["code"] == "unsupported_media_type"
    for t in ("application/json", "application/yaml", "application/x-yaml", "text/yaml"):
        assert t in body["message"]


def test_a_charset_other_than_utf8_is_refused():
    assert "UTF-8" in refused(b"{}", "application/json; charset=latin-1", UnsupportedMediaType)["message"]


def test_json_and_yaml_of_a_template_parse_to_the_same_document():
    for name in catalog.template_names():
        d = catalog.template(name)
        assert parse_document(json.dumps(d).encode(), "application/json") == d
        assert parse_document(catalog.template_yaml(name).encode(), YAML) == d


# --- size, encoding, emptiness ---------------------------------------------------------------

def test_bodies_over_one_mebibyte_are_too_large():
    body = refused(b" " * (MAX_BODY_BYTES + 1), kind=PayloadTooLarge)
    assert body["code"] == "payload_too_large" and str(MAX_BODY_BYTES) in body["message"]


def test_a_body_of_exactly_one_mebibyte_is_read():
    raw = b'{"a": "' + b"x" * (MAX_BODY_BYTES - 9) + b'"}'
    assert len(raw) == MAX_BODY_BYTES
    assert len(parse_document(raw, None)["a"]) == MAX_BODY_BYTES - 9


@pytest.mark.parametrize("content_type", ["application/json", YAML])
def test_non_utf8_is_refused_with_its_position(content_type):
    body = refused(b'{"a": "caf\xe9"}', content_type)
    assert body["code"] == "invalid_encoding" and body["errors"][0]["position"] == 10


@pytest.mark.parametrize("content_type", ["application/json", YAML])
def test_an_empty_body_is_refused(content_type):
    assert refused(b" \n ", content_type)["code"] == "empty_body"


def test_a_utf8_byte_order_mark_is_tolerated():
    assert parse_document(b'\xef\xbb\xbf{"a": 1}', None) == {"a": 1}


# --- malformed JSON --------------------------------------------------------------------------

def test_malformed_json_gives_line_and_column():
    body = refused(b'{\n  "a": 1,\n  "b": }')
    assert body["code"] == "malformed_json"
    err = body["errors"][0]
    assert (err["field"], err["line"], err["column"]) == ("body", 3, 8)
    assert "line 3, column 8" in body["message"]


def test_duplicate_json_keys_are_refused():
    body = refused(b'{"a": 1, "a": 2}')
    assert body["code"] == "malformed_json" and "'a'" in body["message"]


@pytest.mark.parametrize("raw", [b'{"a": NaN}', b'[Infinity]', b'[-Infinity]'])
def test_json_has_no_nan_or_infinity(raw):
    assert refused(raw)["code"] == "malformed_json"


def test_an_absurdly_long_number_is_malformed_not_a_crash():
    body = refused(b"[" + b"9" * 5000 + b"]")
    assert body["code"] == "malformed_json" and "sys." not in body["message"]


# --- nesting depth ---------------------------------------------------------------------------

def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_nesting_up_to_the_limit_is_read():
    assert parse_document(nested(MAX_DEPTH), None) is not None
    assert parse_document(nested(MAX_DEPTH), YAML) is not None


@pytest.mark.parametrize("content_type", ["application/json", YAML])
def test_nesting_past_the_limit_is_refused(content_type):
    assert refused(nested(MAX_DEPTH + 1), content_type)["code"] == "too_deeply_nested"


def test_yaml_block_nesting_is_limited_too():
    raw = "".join("  " * i + f"k{i}:\n" for i in range(MAX_DEPTH + 1)) + "  " * (MAX_DEPTH + 1) + "v\n"
    assert refused(raw.encode(), YAML)["code"] == "too_deeply_nested"


@pytest.mark.parametrize("content_type", ["application/json", YAML])
def test_a_mebibyte_of_brackets_is_refused_as_too_deeply_nested(content_type):
    started = time.perf_counter()
    body = refused(b"[" * MAX_BODY_BYTES, content_type)
    assert body["code"] == "too_deeply_nested"
    print(f"1 MiB of '[' as {content_type} refused in {time.perf_counter() - started:.3f}s")


def test_brackets_inside_strings_do_not_count():
    raw = json.dumps({"a": "[" * 1000, "b": "{{{\\\"[[["}).encode()
    assert not json_depth_exceeds(raw, MAX_DEPTH)
    assert parse_document(raw, None)["a"] == "[" * 1000


def test_json_depth_exceeds_takes_bytes_or_text():
    assert json_depth_exceeds(nested(3), 2) and json_depth_exceeds(nested(3).decode(), 2)
    assert not json_depth_exceeds(nested(2), 2)
    assert json_depth_exceeds('{"a": [{"b": [[1]]}]}', 4)
    assert not json_depth_exceeds('{"a": [{"b": [[1]]}]}', 5)


def test_depth_scan_is_linear_on_escaped_quotes_in_an_unterminated_string():
    started = time.perf_counter()
    assert not json_depth_exceeds(b'"' + b'\\"' * (MAX_BODY_BYTES // 2 - 1), MAX_DEPTH)
    print(f"scan took {time.perf_counter() - started:.3f}s")
    assert refused(b'"' + b'\\"' * 1000)["code"] == "malformed_json"


# --- hostile YAML ----------------------------------------------------------------------------

BILLION_LAUGHS = b"""\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_an_alias_bomb_is_refused_before_any_expansion():
    started = time.perf_counter()
    body = refused(BILLION_LAUGHS, YAML)
    print(f"billion laughs refused in {time.perf_counter() - started:.4f}s")
    assert body["code"] == "yaml_alias_forbidden"
    assert (body["errors"][0]["line"], body["errors"][0]["column"]) == (1, 4)


@pytest.mark.parametrize("raw", [b"base: &b {x: 1}\n", b"- &x 1\n- *x\n", b"a: {<<: *b}\n"])
def test_any_anchor_or_alias_is_refused(raw):
    assert refused(raw, YAML)["code"] == "yaml_alias_forbidden"


def test_a_lone_alias_is_refused_as_an_alias():
    assert refused(b"- *undefined\n", YAML)["code"] == "yaml_alias_forbidden"


@pytest.mark.parametrize("raw", [
    b"a: !!python/object:os.system {}\n",
    b"!!python/object/apply:os.system ['echo pwned']\n",
    b"a: !!python/name:builtins.eval\n",
    b"a: !!binary aGVsbG8=\n",
    b"a: !!set {x, y}\n",
    b"a: !!timestamp 2024-01-01\n",
    b"a: !custom 1\n",
])
def test_tags_beyond_json_types_are_refused(raw):
    body = refused(raw, YAML)
    assert body["code"] == "yaml_tag_forbidden"
    assert "not accepted" in body["message"]


def test_only_one_yaml_document():
    body = refused(b"a: 1\n---\nb: 2\n", YAML)
    assert body["code"] == "malformed_yaml" and body["errors"][0]["line"] == 2


def test_duplicate_yaml_keys_are_refused_with_their_position():
    body = refused(b"a: 1\nb: 2\na: 3\n", YAML)
    assert body["code"] == "malformed_yaml"
    err = body["errors"][0]
    assert (err["code"], err["line"], err["column"]) == ("duplicate_key", 3, 1)


def test_malformed_yaml_gives_the_position():
    body = refused(b"a: [1, 2\nb: 3\n", YAML)
    assert body["code"] == "malformed_yaml"
    assert body["errors"][0]["line"] == 2 and "line 2" in body["message"]


def test_control_characters_are_refused():
    assert refused(b"a: \x07\n", YAML)["code"] == "malformed_yaml"


def test_yaml_reads_as_json_would():
    # Dates stay strings and `<<` is an ordinary key, so YAML cannot express what JSON cannot.
    got = parse_document(b"d: 2024-01-01\n<<: {x: 1}\nn: ~\nq: '3'\ni: 0x10\n", YAML)
    assert got == {"d": "2024-01-01", "<<": {"x": 1}, "n": None, "q": "3", "i": 16}


def test_yaml_infinity_is_refused_like_json():
    assert refused(b"a: .inf\n", YAML)["code"] == "malformed_yaml"


def test_a_yaml_document_of_only_comments_is_null():
    assert parse_document(b"# nothing here\n", YAML) is None


def test_non_scalar_yaml_keys_are_refused():
    assert refused(b"? [a, b]\n: 1\n", YAML)["code"] == "malformed_yaml"


# --- writing YAML ----------------------------------------------------------------------------

def test_dump_yaml_keeps_key_order_and_block_style():
    text = dump_yaml({"kind": "Application", "apiVersion": "e3/v1", "spec": {"edges": [{"from": "a", "to": "b"}]}})
    assert text.splitlines() == ["kind: Application", "apiVersion: e3/v1", "spec:", "  edges:", "  - from: a",
                                 "    to: b"]


def test_dump_yaml_round_trips_through_parse_document_even_with_shared_objects():
    shared = {"platform": "host"}
    doc = {"a": shared, "b": shared, "s": "yes", "d": "2024-01-01", "n": "012", "u": "naïve"}
    text = dump_yaml(doc)
    assert "&" not in text and "*" not in text
    assert parse_document(text.encode(), YAML) == doc
    assert yaml.safe_load(text) == doc


def test_the_pure_python_parser_behaves_the_same(monkeypatch):
    # libyaml is optional in PyYAML; without it the same checks must hold.
    from e3.schemas import documents

    monkeypatch.setattr(documents, "_PARSER", yaml.SafeLoader)
    assert parse_document(catalog.template_yaml("iot-ts").encode(), YAML) == catalog.template("iot-ts")
    assert refused(BILLION_LAUGHS, YAML)["code"] == "yaml_alias_forbidden"
    assert refused(b"[" * MAX_BODY_BYTES, YAML)["code"] == "too_deeply_nested"
    assert refused(b"a: !!python/object:os.system {}\n", YAML)["code"] == "yaml_tag_forbidden"
    assert refused(b"a: 1\na: 2\n", YAML)["errors"][0]["code"] == "duplicate_key"
    assert refused(b"a: [1, 2\nb: 3\n", YAML)["code"] == "malformed_yaml"
    assert refused(b"a: 1\n---\nb: 2\n", YAML)["code"] == "malformed_yaml"
