"""Service configuration as data: every service's JSON Schema, what it accepts and refuses (as the C code in
agents/libe3svc/src/svc_*.c does), and the required keys a save fills in. That the real services accept
what the schemas accept is tests/integration/test_service_config_agents.py's part."""

import re

import pytest

from e3 import catalog
from e3.core.errors import ValidationFailed
from e3.schemas.dag import validate_application
from e3.schemas.service_config import (PROPERTY_KEYWORDS, PROPERTY_TYPES, SCHEMA_KEYWORDS, config_errors,
                                       fill_required, schema_of)
from e3.services.applications import with_required_config


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: this is pure and needs no database."""


def errors(service: str, config: dict) -> dict:
    return {e.field: e for e in config_errors(service, config, "spec.nodes[0].config")}


@pytest.mark.parametrize("service", sorted(catalog.service_types()))
def test_every_service_has_a_schema_in_the_subset_the_api_checks(service):
    schema = schema_of(service)
    assert set(schema) <= SCHEMA_KEYWORDS and schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) <= set(schema["properties"])
    for key, prop in schema["properties"].items():
        assert re.fullmatch(r"[a-z][a-z0-9_]{0,31}", key)  # the spec's config key pattern
        assert set(prop) <= PROPERTY_KEYWORDS and prop["type"] in PROPERTY_TYPES and prop["description"]
        if "pattern" in prop:
            assert prop["pattern"].startswith("^") and prop["pattern"].endswith("$")
            re.compile(prop["pattern"])
        if "default" in prop:
            assert not errors(service, {key: str(prop["default"])}), (key, prop["default"])
        for example in prop.get("examples", []):
            assert not errors(service, {key: example}), (key, example)
        if key in schema["required"]:  # a hand-drawn node must run: every required key can be filled in
            assert "default" in prop or "x-e3-generate" in prop


def test_the_catalogue_serves_a_schema_for_each_of_the_16_services():
    assert len(catalog.service_types()) == 16
    assert all(s.config_schema["title"] == f"{s.name} configuration" for s in catalog.service_types().values())


# Values as the C code reads them: (service, key, value) accepted ...
ACCEPTED = [
    ("api_gateway", "keys", "k1"), ("api_gateway", "keys", "k1,k2"), ("api_gateway", "keys", ",".join(["k"] * 64)),
    ("api_gateway", "rate", "0.5"), ("api_gateway", "rate", "1e6"), ("api_gateway", "burst", "1"),
    ("bayes", "train", "spam:buy now|ham:see you"), ("bayes", "train", " ab :text|c:|"), ("bayes", "alpha", "0.01"),
    ("bm25", "docs", ""), ("bm25", "docs", "d1:the fox| d2:a dog|"), ("bm25", "k1", "0"), ("bm25", "b", "1"),
    ("bm25", "top", "500"),
    ("count", "bits", "64"), ("count", "bits", str(2 ** 34)),
    ("ddos", "window", "1"), ("ddos", "window", str(2 ** 26)), ("ddos", "threshold", "-1"),
    ("ema", "alpha", "1"), ("ema", "alpha", ".25"),
    ("flow_monitor", "width", str(2 ** 28)), ("flow_monitor", "depth", "32"), ("flow_monitor", "seed", "42"),
    ("ipsec", "key", "000102030405060708090a0b0c0d0e0F"), ("ipsec", "auth_key", "ab"),
    ("ipsec", "auth_key", "ab" * 64), ("ipsec", "iv", "f" * 32),
    ("knn", "points", "0,0:low|1,1:high"), ("knn", "points", "1.5 -2e3\t.5: a |3,4,5:b|"), ("knn", "k", "1"),
    ("kvs", "max_value", "1"), ("kvs", "max_value", "65530"),
    ("natv4", "rules", ""), ("natv4", "rules", "10.0.0.0/8>192.168.0.0"),
    ("natv4", "rules", " 10.1.2.3/32>172.16.0.9:8080 , 0.0.0.0/0>1.2.3.4:65535,"),
    ("natv4", "rules", "001.2.3.4/032>5.6.7.8"),
    ("nids", "patterns", ""), ("nids", "patterns", "attack,exploit"), ("nids", "patterns", r"a\,b,\x3b\\,GET /"),
    ("spike", "threshold", "0.1"),
    ("sql", "columns", "id:int"), ("sql", "columns", " id : int , name:text,temp:real,"),
    ("sql", "columns", ",".join(["id:int"] + [f"c{i}:text" for i in range(31)])),
]
# ... and refused, with the C code's reason.
REFUSED = [
    ("api_gateway", "keys", "", "no key"), ("api_gateway", "keys", "a,,b", "empty key"),
    ("api_gateway", "keys", "a, b", "a key with a space can never be presented"),
    ("api_gateway", "keys", ",".join(["k"] * 65), "more than 64 keys"),
    ("api_gateway", "rate", "0", "rate > 0"), ("api_gateway", "rate", "fast", "not a number"),
    ("api_gateway", "burst", "0", "burst >= 1"), ("api_gateway", "burst", "1.5", "not an integer"),
    ("bayes", "train", "", "needs a document"), ("bayes", "train", "no class", "<class>:<text>"),
    ("bayes", "train", "a:x||b:y", "empty document"),
    ("bayes", "train", "a b:x", "stricter than the C: a class with a space makes \"<class> <score>\" ambiguous"),
    ("bayes", "train", "c" * 64 + ":x", "class over 63 bytes"),
    ("bayes", "alpha", "0", "alpha > 0"),
    ("bm25", "docs", "d 1:text", "space in a doc id"), ("bm25", "docs", "text without id", "<id>:<text>"),
    ("bm25", "k1", "-0.1", "k1 >= 0"), ("bm25", "b", "1.5", "b <= 1"), ("bm25", "top", "501", "top <= 500"),
    ("count", "bits", "100", "multiple of 64"), ("count", "bits", "0", "at least 64"),
    ("count", "bits", str(2 ** 34 + 64), "at most 2^34"), ("count", "bits", "0x40", "the API reads decimal only"),
    ("count", "bits", "010", "strtol base 0 would read octal"),
    ("ddos", "window", "0", "window >= 1"), ("ddos", "threshold", "inf", "finite"),
    ("ema", "alpha", "0", "alpha > 0"), ("ema", "alpha", "1.01", "alpha <= 1"), ("ema", "alpha", "1e-400", "underflow"),
    ("flow_monitor", "depth", "33", "depth <= 32"), ("flow_monitor", "width", "0", "width >= 1"),
    ("flow_monitor", "seed", str(2 ** 63), "overflows a long"),
    ("ipsec", "key", "00", "32 hex digits"), ("ipsec", "key", "g" * 32, "hex"), ("ipsec", "auth_key", "abc", "even"),
    ("ipsec", "auth_key", "ab" * 65, "at most 64 bytes"), ("ipsec", "iv", "0" * 30, "32 hex digits"),
    ("knn", "points", "", "needs a point"), ("knn", "points", "1,2", "needs a label"),
    ("knn", "points", ":a", "no coordinate"),
    ("knn", "points", "1,x:a", "coordinates are numbers"), ("knn", "points", ",".join(["1"] * 65) + ":a", "at most 64"),
    ("knn", "k", "0", "k >= 1"),
    ("kvs", "max_value", "0", "at least 1"), ("kvs", "max_value", "65531", "fits a response"),
    ("natv4", "rules", "10.0.0.0/33>1.2.3.4", "len <= 32"), ("natv4", "rules", "256.0.0.0/8>1.2.3.4", "octet"),
    ("natv4", "rules", "10.0.0.0/8>1.2.3.4:0", "port 1..65535"), ("natv4", "rules", "10.0.0.0/8>1.2.3.4:65536", "port"),
    ("natv4", "rules", "10.0.0.0/8>1.2.3.4,,", "empty rule"), ("natv4", "rules", "0001.0.0.0/8>1.2.3.4", "3 digits"),
    ("nids", "patterns", "a,,b", "empty pattern"), ("nids", "patterns", "a,", "empty last pattern"),
    ("nids", "patterns", r"\q", "bad escape"), ("nids", "patterns", "ab\\", "trailing backslash"),
    ("nids", "patterns", r"\x4", "two hex digits"),
    ("spike", "threshold", "0", "threshold > 0"),
    ("sql", "columns", "", "needs a column"), ("sql", "columns", "name:text,id:int", "the key is an int"),
    ("sql", "columns", "id:int,a:text,a:real", "defined twice"), ("sql", "columns", "id:integer", "int|real|text"),
    ("sql", "columns", "1id:int", "a name does not start with a digit"), ("sql", "columns", "id:INT", "lowercase type"),
    ("sql", "columns", "i" * 32 + ":int", "31 bytes"), ("sql", "columns", "id:int,,a:int", "empty column"),
    ("sql", "columns", ",".join(["id:int"] + [f"c{i}:text" for i in range(32)]), "at most 32 columns"),
]


@pytest.mark.parametrize("service,key,value", ACCEPTED)
def test_a_value_the_service_accepts_is_accepted(service, key, value):
    assert not errors(service, {key: value})


@pytest.mark.parametrize("service,key,value,why", REFUSED)
def test_a_value_the_service_refuses_is_refused_at_its_field(service, key, value, why):
    found = errors(service, {key: value})
    assert list(found) == [f"spec.nodes[0].config.{key}"], why
    assert found[f"spec.nodes[0].config.{key}"].code in ("wrong_type", "out_of_range", "pattern_mismatch")


def test_messages_say_what_is_wrong_and_what_would_be_right():
    assert errors("count", {"bits": "100"})["spec.nodes[0].config.bits"].message == "must be a multiple of 64, got 100"
    assert errors("ema", {"alpha": "2"})["spec.nodes[0].config.alpha"].as_dict() == {
        "field": "spec.nodes[0].config.alpha", "message": "must be at most 1, got 2", "code": "out_of_range", "max": 1}
    bad_type = errors("kvs", {"max_value": "big"})["spec.nodes[0].config.max_value"]
    assert (bad_type.code, bad_type.message) == ("wrong_type", "must be an integer in decimal digits without leading "
                                                               "zeros, got 'big'")
    unknown = errors("kvs", {"max_values": "10"})["spec.nodes[0].config.max_values"]
    assert unknown.as_dict() == {"field": "spec.nodes[0].config.max_values", "code": "unknown_field",
                                 "message": "unknown key 'max_values' for kvs; its keys: max_value",
                                 "valid": ["max_value"]}
    assert errors("recommend", {"k": "1"})["spec.nodes[0].config.k"].message == \
        "unknown key 'k' for recommend; it takes no configuration"
    columns = errors("sql", {"columns": "name:text"})["spec.nodes[0].config.columns"].message
    assert columns.startswith("'name:text' is not valid: The table's columns") and "the first column is" in columns


def test_a_required_key_left_out_is_no_error_because_a_save_fills_it_in():
    assert not errors("api_gateway", {}) and not errors("sql", {}) and not errors("ipsec", {})


def test_fill_required_writes_defaults_and_generated_secrets_and_keeps_what_is_given():
    gateway = fill_required("api_gateway", {"rate": "5"})
    assert set(gateway) == {"keys", "rate"} and re.fullmatch(r"[0-9a-f]{32}", gateway["keys"])
    assert fill_required("api_gateway", {})["keys"] != gateway["keys"]  # random, not a shared default
    assert fill_required("api_gateway", {"keys": "mine"}) == {"keys": "mine"}
    assert fill_required("sql", {}) == {"columns": "id:int,value:real"}
    assert fill_required("knn", {"k": "1"}) == {"k": "1", "points": "0,0:low|1,1:high"}
    assert fill_required("bayes", {})["train"].startswith("spam:")
    ipsec = fill_required("ipsec", {})
    assert re.fullmatch(r"[0-9a-f]{32}", ipsec["key"]) and re.fullmatch(r"[0-9a-f]{40}", ipsec["auth_key"])
    assert fill_required("kvs", {}) == {}  # optional keys stay out: the service's own default applies
    assert fill_required("api_gateway", {}, previous={"keys": "before", "rate": "9"}) == {"keys": "before"}


def test_every_template_gets_a_configuration_its_services_accept():
    for name in catalog.template_names():
        spec = with_required_config(validate_application(catalog.template(name)))
        for node in spec.nodes:
            assert set(schema_of(node.service)["required"]) <= set(node.config), (name, node.id)
        assert validate_application(spec.to_document()) == spec  # the filled spec is valid and canonical


def test_a_new_version_keeps_the_generated_key_of_a_node_it_leaves_out():
    document = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "gw"},
                "spec": {"nodes": [{"id": "gw", "service": "api_gateway"}, {"id": "db", "service": "sql"}]}}
    first = with_required_config(validate_application(document))
    again = with_required_config(validate_application(document), previous=first)
    assert again == first
    renamed = dict(document, spec={"nodes": [{"id": "gw2", "service": "api_gateway"}]})
    assert with_required_config(validate_application(renamed), first).node("gw2").config["keys"] != \
        first.node("gw").config["keys"]  # another node: a key of its own


def test_validation_reports_config_problems_with_the_others():
    document = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "bad"},
                "spec": {"nodes": [{"id": "gw", "service": "api_gateway", "config": {"rate": "-1"}},
                                   {"id": "db", "service": "sql", "shards": 0, "config": {"columns": "id:int"}},
                                   {"id": "kv", "service": "kvs", "config": {"max_value": "0"}}],
                         "edges": [{"from": "gw", "to": "nowhere"}]}}
    with pytest.raises(ValidationFailed) as info:
        validate_application(document)
    assert {e.field for e in info.value.errors} == {"spec.nodes[0].config.rate", "spec.nodes[1].shards",
                                                    "spec.nodes[2].config.max_value", "spec.edges[0].to"}
