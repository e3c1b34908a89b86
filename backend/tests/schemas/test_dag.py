"""The DAG spec: what a user sending a document sees accepted, and where each mistake is reported."""

import copy

import pytest

from e3 import catalog
from e3.core.errors import ValidationFailed
from e3.schemas.dag import MAX_ERRORS, ApplicationSpec, find_cycle, validate_application
from e3.schemas.documents import dump_yaml, parse_document


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: validation is pure and needs no database."""


def doc(nodes=None, edges=None, **top) -> dict:
    d = {
        "apiVersion": "e3/v1",
        "kind": "Application",
        "metadata": {"name": "demo"},
        "spec": {
            "nodes": nodes if nodes is not None else [
                {"id": "api", "service": "api_gateway", "shards": 2},
                {"id": "db", "service": "sql", "shards": 4},
            ],
            "edges": edges if edges is not None else [{"from": "api", "to": "db"}],
        },
    }
    d.update(top)
    return d


def problems(d) -> dict:
    """{field: error} for a document that must be refused."""
    with pytest.raises(ValidationFailed) as info:
        validate_application(d)
    body = info.value.body()
    assert body["code"] == "validation_failed"
    return {e["field"]: e for e in body["errors"]}


# --- accepted documents ----------------------------------------------------------------------

@pytest.mark.parametrize("name", catalog.template_names())
def test_every_catalogue_template_validates_and_round_trips(name):
    spec = validate_application(catalog.template(name))
    assert spec.name == name
    assert spec.instance_count() == catalog.applications()[name].instances
    assert validate_application(spec.to_document()) == spec
    assert validate_application(parse_document(dump_yaml(spec.to_document()).encode(), "application/yaml")) == spec


def test_there_are_eight_templates():
    assert len(catalog.template_names()) == 8


def test_iot_ts_has_108_instances_and_starts_at_the_gateway():
    spec = validate_application(catalog.template("iot-ts"))
    assert spec.instance_count() == 108
    assert [n.id for n in spec.sources()] == ["api"]
    assert spec.children("sql") == ["ema", "spike", "recommend"]


def test_defaults_are_filled_in():
    spec = validate_application(doc(nodes=[{"id": "a", "service": "ema"}], edges=[]))
    node = spec.nodes[0]
    assert (node.shards, node.replicas, node.platform, node.request_bytes) == (1, 1, "any", 512)
    assert spec.description == "" and spec.labels == {}
    assert spec.edges == []


def test_edges_may_be_omitted():
    d = doc()
    del d["spec"]["edges"]
    assert validate_application(d).edges == []


def test_sql_left_at_any_is_effectively_host_only():
    spec = validate_application(doc())
    assert spec.node("db").platform == "host"
    # what the user reads back (GET, export) says so too
    assert spec.to_document()["spec"]["nodes"][1]["constraints"] == {"platform": "host"}


def test_canonical_document_has_every_field_in_order():
    out = validate_application(doc()).to_document()
    assert list(out) == ["apiVersion", "kind", "metadata", "spec"]
    assert out["spec"]["nodes"][0] == {"id": "api", "service": "api_gateway", "shards": 2, "replicas": 1,
                                       "constraints": {"platform": "any"}, "request_bytes": 512}
    assert out["spec"]["edges"] == [{"from": "api", "to": "db"}]


def test_sources_are_in_spec_order():
    nodes = [{"id": i, "service": "ema"} for i in ("c", "a", "b", "d")]
    spec = validate_application(doc(nodes=nodes, edges=[{"from": "c", "to": "d"}, {"from": "a", "to": "d"}]))
    assert [n.id for n in spec.sources()] == ["c", "a", "b"]


def test_validation_does_not_modify_the_input():
    d = doc()
    before = copy.deepcopy(d)
    validate_application(d)
    assert d == before


def test_labels_and_description_are_kept():
    d = doc()
    d["metadata"].update(description="thermostats", labels={"team": "iot", "app.kubernetes.io/part-of": "e3"})
    spec = validate_application(d)
    assert spec.labels == {"team": "iot", "app.kubernetes.io/part-of": "e3"}
    assert validate_application(spec.to_document()) == spec


def test_limits_are_inclusive():
    spec = validate_application(doc(nodes=[{"id": "a" * 63, "service": "ema", "shards": 1000, "replicas": 0,
                                            "request_bytes": 65535}], edges=[], metadata={"name": "x" * 63}))
    assert spec.instance_count() == 1000


# --- the envelope ----------------------------------------------------------------------------

def test_wrong_api_version_and_kind_say_what_was_expected():
    errs = problems(doc(apiVersion="e3/v2", kind="Cluster"))
    assert "'e3/v1'" in errs["apiVersion"]["message"] and "e3/v2" in errs["apiVersion"]["message"]
    assert "'Application'" in errs["kind"]["message"]


def test_missing_sections_are_each_reported():
    errs = problems({})
    assert {"apiVersion", "kind", "metadata", "spec"} <= set(errs)
    assert all(e["code"] == "missing" for e in errs.values())


@pytest.mark.parametrize("value", [None, [], "text", 3])
def test_a_document_that_is_not_an_object_is_refused(value):
    errs = problems(value)
    assert "must be an object" in errs["body"]["message"]


@pytest.mark.parametrize("where, path", [
    (lambda d: d, "colour"),
    (lambda d: d["metadata"], "metadata.colour"),
    (lambda d: d["spec"], "spec.colour"),
    (lambda d: d["spec"]["nodes"][1], "spec.nodes[1].colour"),
    (lambda d: d["spec"]["edges"][0], "spec.edges[0].colour"),
])
def test_unknown_keys_are_refused_anywhere(where, path):
    d = doc()
    where(d)["colour"] = "red"
    errs = problems(d)
    assert errs[path]["code"] == "unknown_field"
    assert "'colour'" in errs[path]["message"]


def test_constraints_refuse_unknown_keys():
    errs = problems(doc(nodes=[{"id": "a", "service": "ema", "constraints": {"platfrom": "host"}}], edges=[]))
    assert "spec.nodes[0].constraints.platfrom" in errs


# --- metadata --------------------------------------------------------------------------------

def test_name_is_required():
    errs = problems(doc(metadata={}))
    assert errs["metadata.name"]["code"] == "missing"


@pytest.mark.parametrize("name", ["Demo", "-demo", "demo-", "de_mo", "", "x" * 64, "demo\n"])
def test_name_must_be_a_dns_label(name):
    errs = problems(doc(metadata={"name": name}))
    message = errs["metadata.name"]["message"]
    assert "1-63" in message and "^[a-z0-9]" in message


def test_description_is_limited_to_1000_characters():
    errs = problems(doc(metadata={"name": "demo", "description": "x" * 1001}))
    assert "1000" in errs["metadata.description"]["message"]


def test_label_values_must_be_strings():
    errs = problems(doc(metadata={"name": "demo", "labels": {"team": 7}}))
    assert "string" in errs["metadata.labels.team"]["message"]


def test_labels_are_limited_in_number():
    labels = {f"k{i}": "v" for i in range(65)}
    errs = problems(doc(metadata={"name": "demo", "labels": labels}))
    assert errs["metadata.labels"]["code"] == "too_long"


# --- nodes -----------------------------------------------------------------------------------

def test_an_application_needs_a_node():
    errs = problems(doc(nodes=[], edges=[]))
    assert "at least one node" in errs["spec.nodes"]["message"]


def test_at_most_1000_nodes():
    nodes = [{"id": f"n{i}", "service": "ema", "replicas": 0} for i in range(1001)]
    errs = problems(doc(nodes=nodes, edges=[]))
    assert "1000" in errs["spec.nodes"]["message"]


def test_node_id_and_service_are_required():
    errs = problems(doc(nodes=[{"shards": 1}], edges=[]))
    assert errs["spec.nodes[0].id"]["code"] == "missing"
    assert errs["spec.nodes[0].service"]["code"] == "missing"


@pytest.mark.parametrize("node_id", ["Api", "1api", "_api", "a" * 64, "api gw", ""])
def test_node_id_pattern(node_id):
    errs = problems(doc(nodes=[{"id": node_id, "service": "ema"}], edges=[]))
    assert "^[a-z][a-z0-9_-]{0,62}$" in errs["spec.nodes[0].id"]["message"]


def test_unknown_service_lists_the_sixteen_valid_ones_sorted():
    nodes = [{"id": "a", "service": "ema"}, {"id": "b", "service": "ema"}, {"id": "c", "service": "postgres"}]
    err = problems(doc(nodes=nodes, edges=[]))["spec.nodes[2].service"]
    assert err["code"] == "unknown_service"
    assert err["valid"] == sorted(catalog.service_types()) and len(err["valid"]) == 16
    assert "'postgres'" in err["message"] and ", ".join(err["valid"]) in err["message"]


@pytest.mark.parametrize("field, value, gist", [
    ("shards", 0, "at least 1"),
    ("shards", 1001, "at most 1000"),
    ("shards", 1.5, "integer"),
    ("shards", 2.0, "integer"),
    ("shards", "3", "integer"),
    ("shards", True, "boolean"),
    ("shards", None, "integer"),
    ("replicas", -1, "at least 0"),
    ("replicas", 1001, "at most 1000"),
    ("replicas", False, "boolean"),
    ("request_bytes", 0, "at least 1"),
    ("request_bytes", 65536, "at most 65535"),
    ("request_bytes", "512", "integer"),
])
def test_integer_fields_are_strict_and_bounded(field, value, gist):
    errs = problems(doc(nodes=[{"id": "a", "service": "ema", field: value}], edges=[]))
    assert gist in errs[f"spec.nodes[0].{field}"]["message"]


def test_duplicate_node_id_is_reported_at_the_second_occurrence():
    nodes = [{"id": "a", "service": "ema"}, {"id": "b", "service": "ema"}, {"id": "a", "service": "spike"}]
    errs = problems(doc(nodes=nodes, edges=[]))
    assert set(errs) == {"spec.nodes[2].id"}
    assert "'a'" in errs["spec.nodes[2].id"]["message"] and "spec.nodes[0]" in errs["spec.nodes[2].id"]["message"]


def test_platform_outside_the_choices_lists_them():
    err = problems(doc(nodes=[{"id": "a", "service": "ema", "constraints": {"platform": "gpu"}}], edges=[]))[
        "spec.nodes[0].constraints.platform"]
    assert err["valid"] == ["any", "host", "smartnic"]
    assert all(p in err["message"] for p in ("host", "smartnic", "any"))


def test_sql_on_the_smartnic_contradicts_the_paper():
    nodes = [{"id": "db", "service": "sql", "constraints": {"platform": "smartnic"}}]
    err = problems(doc(nodes=nodes, edges=[]))["spec.nodes[0].constraints.platform"]
    assert err["code"] == "platform_not_supported"
    assert "host-only" in err["message"] and "cannot migrate to the SmartNIC" in err["message"]
    assert err["valid"] == ["any", "host"]


def test_sql_pinned_to_host_and_others_to_smartnic_are_fine():
    nodes = [{"id": "db", "service": "sql", "constraints": {"platform": "host"}},
             {"id": "fw", "service": "ddos", "constraints": {"platform": "smartnic"}}]
    spec = validate_application(doc(nodes=nodes, edges=[]))
    assert [n.platform for n in spec.nodes] == ["host", "smartnic"]


def test_total_instances_are_limited_to_100000():
    nodes = [{"id": f"n{i}", "service": "ema", "shards": 1000, "replicas": 50} for i in range(2)]
    err = problems(doc(nodes=nodes, edges=[]))["spec.nodes"]
    assert err["code"] == "too_many_instances" and "102000" in err["message"] and "100000" in err["message"]


def test_exactly_100000_instances_are_accepted():
    nodes = [{"id": f"n{i}", "service": "ema", "shards": 1000, "replicas": 49} for i in range(2)]
    assert validate_application(doc(nodes=nodes, edges=[])).instance_count() == 100_000


# --- edges -----------------------------------------------------------------------------------

def test_edge_to_an_unknown_node_names_it():
    errs = problems(doc(edges=[{"from": "api", "to": "db"}, {"from": "api", "to": "cache"}]))
    assert set(errs) == {"spec.edges[1].to"}
    assert "'cache'" in errs["spec.edges[1].to"]["message"]


def test_edge_from_an_unknown_node_names_it():
    errs = problems(doc(edges=[{"from": "web", "to": "db"}]))
    assert "'web'" in errs["spec.edges[0].from"]["message"]


def test_edge_fields_are_required_and_strings():
    errs = problems(doc(edges=[{"to": 3}]))
    assert errs["spec.edges[0].from"]["code"] == "missing"
    assert "string" in errs["spec.edges[0].to"]["message"]


def test_self_loop():
    errs = problems(doc(edges=[{"from": "api", "to": "api"}]))
    assert errs["spec.edges[0]"]["code"] == "self_loop"
    assert "self-loop" in errs["spec.edges[0]"]["message"]


def test_duplicate_edge():
    errs = problems(doc(edges=[{"from": "api", "to": "db"}, {"from": "api", "to": "db"}]))
    assert set(errs) == {"spec.edges[1]"}
    assert "duplicate" in errs["spec.edges[1]"]["message"] and "spec.edges[0]" in errs["spec.edges[1]"]["message"]


def test_a_cycle_is_one_error_naming_the_loop():
    nodes = [{"id": i, "service": "ema"} for i in ("s", "a", "b", "c")]
    edges = [{"from": "s", "to": "a"}, {"from": "a", "to": "b"}, {"from": "b", "to": "c"}, {"from": "c", "to": "a"}]
    errs = problems(doc(nodes=nodes, edges=edges))
    assert set(errs) == {"spec.edges"}
    assert errs["spec.edges"]["message"].startswith("cycle: a -> b -> c -> a")
    assert errs["spec.edges"]["cycle"] == ["a", "b", "c"]


def test_cycle_detection_is_deterministic_and_finds_a_real_cycle():
    edges = [("a", "b"), ("b", "c"), ("c", "b"), ("c", "a"), ("d", "d")]
    assert find_cycle(["a", "b", "c", "d"], edges) == ["b", "c"]
    assert find_cycle(["a", "b", "c"], [("a", "b"), ("b", "c"), ("a", "c")]) is None
    long_chain = [(f"n{i}", f"n{i + 1}") for i in range(5000)] + [("n5000", "n0")]
    assert len(find_cycle([f"n{i}" for i in range(5001)], long_chain)) == 5001  # no recursion limit


# --- many problems at once -------------------------------------------------------------------

def test_all_problems_are_reported_together():
    nodes = [
        {"id": "a", "service": "sqll", "shards": "3"},
        {"id": "b", "service": "sql", "constraints": {"platform": "smartnic"}},
        {"id": "a", "service": "ema"},
    ]
    edges = [{"from": "a", "to": "zz"}, {"from": "b", "to": "b"}]
    errs = problems(doc(nodes=nodes, edges=edges, kind="App"))
    assert {"kind", "spec.nodes[0].shards", "spec.nodes[0].service", "spec.nodes[1].constraints.platform",
            "spec.nodes[2].id", "spec.edges[0].to", "spec.edges[1]"} == set(errs)


def test_an_edge_to_a_node_with_another_fault_is_not_called_unknown():
    errs = problems(doc(nodes=[{"id": "a", "service": "ema"}, {"id": "b", "service": "ema", "shards": 0}],
                        edges=[{"from": "a", "to": "b"}]))
    assert set(errs) == {"spec.nodes[1].shards"}


def test_the_error_list_is_capped():
    nodes = [{"id": f"n{i}", "service": "nope"} for i in range(MAX_ERRORS + 50)]
    with pytest.raises(ValidationFailed) as info:
        validate_application(doc(nodes=nodes, edges=[]))
    assert len(info.value.errors) == MAX_ERRORS
    assert f"the first {MAX_ERRORS}" in info.value.message


def test_error_bodies_never_carry_pydantic_internals():
    with pytest.raises(ValidationFailed) as info:
        validate_application(doc(nodes=[{"id": 5, "service": ["x"], "shards": 1.5, "bogus": 1}], metadata=[]))
    for e in info.value.body()["errors"]:
        assert set(e) <= {"field", "message", "code", "valid", "min", "max", "pattern", "cycle"}
        assert "pydantic" not in e["message"] and "Input should" not in e["message"]
        assert "(" not in e["field"] and "'" not in e["field"]


def test_validated_spec_is_a_plain_value():
    spec = validate_application(doc())
    assert isinstance(spec, ApplicationSpec)
    assert spec == validate_application(doc())
