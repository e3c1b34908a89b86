"""The cluster spec: racks of servers by type, a FatTree generator, and the flat shorthand."""

import pytest

from e3 import catalog
from e3.core.errors import ValidationFailed
from e3.schemas.cluster_spec import ClusterSpec, RackSpec, validate_cluster


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: validation is pure and needs no database."""


def document(spec: dict, **top) -> dict:
    return {"apiVersion": "e3/v1", "kind": "Cluster", "metadata": {"name": "lab"}, "spec": spec, **top}


def shorthand(**fields) -> dict:
    return {"generator": "fattree", "servers": 100, "server_type": "type2-smartnic", **fields}


def problems(d) -> dict:
    with pytest.raises(ValidationFailed) as info:
        validate_cluster(d)
    return {e["field"]: e for e in info.value.body()["errors"]}


# --- explicit racks --------------------------------------------------------------------------

def test_explicit_racks():
    spec = validate_cluster(document({"racks": [
        {"name": "edge", "pod": 1, "servers": [{"type": "beefy", "count": 2}, {"type": "type1-smartnic"}]},
        {"servers": [{"type": "wimpy"}]},
    ]}))
    assert spec == ClusterSpec("lab", [RackSpec("edge", 1, ["beefy", "beefy", "type1-smartnic"]),
                                       RackSpec("r0001", 0, ["wimpy"])])


def test_every_server_type_is_accepted():
    groups = [{"type": t} for t in catalog.server_types()]
    spec = validate_cluster(document({"racks": [{"servers": groups}]}))
    assert spec.racks[0].server_types == list(catalog.server_types())


def test_unknown_server_type_lists_the_valid_ones():
    err = problems(document({"racks": [{"servers": [{"type": "beefy"}, {"type": "gpu-box"}]}]}))[
        "spec.racks[0].servers[1].type"]
    assert err["code"] == "unknown_server_type"
    assert err["valid"] == sorted(catalog.server_types())
    assert "'gpu-box'" in err["message"] and "type2-smartnic" in err["message"]


def test_a_cluster_needs_racks():
    assert "at least one rack" in problems(document({"racks": []}))["spec.racks"]["message"]
    assert "racks or generator" in problems(document({}))["spec.racks"]["message"]


def test_a_rack_needs_servers():
    errs = problems(document({"racks": [{"name": "a", "servers": []}]}))
    assert "at least one server" in errs["spec.racks[0].servers"]["message"]


@pytest.mark.parametrize("field, value, gist", [
    ("count", 0, "at least 1"),
    ("count", 1001, "at most 1000"),
    ("count", 2.5, "integer"),
    ("count", "2", "integer"),
])
def test_server_count_is_a_bounded_integer(field, value, gist):
    errs = problems(document({"racks": [{"servers": [{"type": "beefy", field: value}]}]}))
    assert gist in errs[f"spec.racks[0].servers[0].{field}"]["message"]


def test_pod_must_not_be_negative():
    assert "at least 0" in problems(document({"racks": [{"pod": -1, "servers": [{"type": "beefy"}]}]}))[
        "spec.racks[0].pod"]["message"]


@pytest.mark.parametrize("name", ["Rack1", "1rack", "r" * 64])
def test_rack_name_pattern(name):
    errs = problems(document({"racks": [{"name": name, "servers": [{"type": "beefy"}]}]}))
    assert "^[a-z][a-z0-9_-]{0,62}$" in errs["spec.racks[0].name"]["message"]


def test_rack_names_are_unique():
    errs = problems(document({"racks": [{"name": "a", "servers": [{"type": "beefy"}]},
                                        {"name": "a", "servers": [{"type": "beefy"}]}]}))
    assert "duplicate rack name 'a'" in errs["spec.racks[1].name"]["message"]


def test_a_generated_rack_name_clashing_with_an_explicit_one_is_caught():
    errs = problems(document({"racks": [{"name": "r0001", "servers": [{"type": "beefy"}]},
                                        {"servers": [{"type": "beefy"}]}]}))
    assert "'r0001'" in errs["spec.racks[1]"]["message"]


def test_a_rack_holds_at_most_1000_servers():
    errs = problems(document({"racks": [{"servers": [{"type": "beefy", "count": 600}] * 2}]}))
    assert "1200" in errs["spec.racks[0].servers"]["message"]


def test_total_servers_are_limited_to_100000():
    racks = [{"servers": [{"type": "beefy", "count": 1000}]} for _ in range(101)]
    err = problems(document({"racks": racks}))["spec.racks"]
    assert err["code"] == "too_many_servers" and "101000" in err["message"]


def test_unknown_keys_in_racks_are_refused():
    errs = problems(document({"racks": [{"servers": [{"type": "beefy", "cpu": 4}], "row": 2}]}))
    assert {"spec.racks[0].servers[0].cpu", "spec.racks[0].row"} <= set(errs)


# --- the document envelope -------------------------------------------------------------------

def test_envelope_problems_are_reported_beside_spec_problems():
    errs = problems(document({"racks": [{"servers": [{"type": "nope"}]}]}, apiVersion="v1", kind="Application",
                             metadata={"name": "Lab"}))
    assert "'e3/v1'" in errs["apiVersion"]["message"]
    assert "'Cluster'" in errs["kind"]["message"]
    assert "1-63" in errs["metadata.name"]["message"]
    assert "spec.racks[0].servers[0].type" in errs


def test_spec_must_be_an_object():
    assert "must be an object" in problems(document([1]))["spec"]["message"]


def test_racks_and_generator_are_alternatives():
    errs = problems(document({"generator": "fattree", "servers": 10, "server_type": "beefy",
                              "racks": [{"servers": [{"type": "beefy"}]}]}))
    assert "alternatives" in errs["spec.racks"]["message"]


# --- the generator, in a document and as shorthand -------------------------------------------

def test_generator_in_a_document():
    spec = validate_cluster(document({"generator": "fattree", "servers": 100, "server_type": "beefy"}))
    assert spec.name == "lab"
    assert [len(r.server_types) for r in spec.racks] == [40, 40, 20]
    assert [r.name for r in spec.racks] == ["r0000", "r0001", "r0002"]


def test_shorthand_fills_racks_and_pods():
    spec = validate_cluster(shorthand(servers=1000, servers_per_rack=40, racks_per_pod=8))
    assert spec.name == "fattree-1000-type2-smartnic"
    assert [len(r.server_types) for r in spec.racks] == [40] * 25
    assert [r.pod for r in spec.racks[:9]] == [0] * 8 + [1]
    assert spec.racks[-1].name == "r0024" and spec.racks[-1].pod == 3
    assert set(spec.racks[0].server_types) == {"type2-smartnic"}


def test_shorthand_defaults_and_name():
    spec = validate_cluster({"name": "big", "generator": "fattree", "servers": 81, "server_type": "beefy"})
    assert spec.name == "big"
    assert [len(r.server_types) for r in spec.racks] == [40, 40, 1]


def test_generating_100000_servers_is_cheap_plain_data():
    spec = validate_cluster(shorthand(servers=100_000))
    assert [len(r.server_types) for r in spec.racks] == [40] * 2500 and spec.racks[-1].pod == 312
    assert type(spec.racks[0].server_types[0]) is str


@pytest.mark.parametrize("field, value, gist", [
    ("servers", 0, "at least 1"),
    ("servers", 100_001, "at most 100000"),
    ("servers", "1000", "integer"),
    ("servers", 10.0, "integer"),
    ("servers_per_rack", 0, "at least 1"),
    ("servers_per_rack", 1001, "at most 1000"),
    ("racks_per_pod", 0, "at least 1"),
    ("racks_per_pod", 1001, "at most 1000"),
    ("racks_per_pod", True, "boolean"),
])
def test_generator_numbers_are_bounded_integers(field, value, gist):
    errs = problems(shorthand(**{field: value}))
    assert gist in errs[field]["message"]


def test_shorthand_zero_servers_is_an_error_at_servers():
    errs = problems(shorthand(servers=0))
    assert set(errs) == {"servers"}


def test_shorthand_unknown_server_type():
    err = problems(shorthand(server_type="type3-smartnic"))["server_type"]
    assert err["valid"] == sorted(catalog.server_types())


def test_only_the_fattree_generator_exists():
    assert "'fattree'" in problems(shorthand(generator="mesh"))["generator"]["message"]


def test_shorthand_name_pattern_and_unknown_keys():
    errs = problems(shorthand(name="My Cluster", colour="red"))
    assert "1-63" in errs["name"]["message"]
    assert errs["colour"]["code"] == "unknown_field"


def test_shorthand_requires_servers_and_type():
    errs = problems({"generator": "fattree"})
    assert errs["servers"]["code"] == "missing" and errs["server_type"]["code"] == "missing"


def test_generator_problems_inside_a_document_carry_the_spec_prefix():
    errs = problems(document({"generator": "fattree", "servers": 0, "server_type": "nope"}))
    assert {"spec.servers", "spec.server_type"} == set(errs)


@pytest.mark.parametrize("value", [None, [], "fattree", 5])
def test_a_cluster_that_is_not_an_object_is_refused(value):
    assert "must be an object" in problems(value)["body"]["message"]
