"""A stored DAG document is read through one typed view (`ApplicationSpec.from_document`), never walked by hand.

The view is what validation returns, so a module reading a document sees the same nodes, defaults and
effective platforms as the user's accepted spec; a hand walk repeats the defaults (and forgets one).
"""

import re
from pathlib import Path

import pytest

from e3 import catalog
from e3.schemas.dag import ApplicationSpec, DagNode, validate_application

PACKAGE = Path(__file__).resolve().parents[1] / "e3"
VIEW_MODULE = PACKAGE / "schemas" / "dag.py"

# document["spec"]["nodes"], doc["spec"].get("edges"), spec["nodes"], spec.get("edges", []), ...
HAND_WALK = re.compile(r"""(\["spec"\]|\bspec)\s*(\[\s*["'](nodes|edges)["']\s*\]|\.get\(\s*["'](nodes|edges)["'])""")


@pytest.fixture(autouse=True)
def clean_database():
    """Overrides the suite's per-test database reset: these checks read source and documents only."""


def hand_walks(root: Path = PACKAGE) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.py")):
        if "gen" in path.relative_to(root).parts or path == VIEW_MODULE:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if HAND_WALK.search(line):
                out.append(f"{path.relative_to(root.parent)}:{number}: {line.strip()}")
    return out


def test_no_module_walks_a_dag_document_by_hand():
    assert not hand_walks(), "read the document through ApplicationSpec.from_document instead"


@pytest.mark.parametrize("line", ['for n in document["spec"]["nodes"]:', 'doc["spec"].get("edges", [])',
                                  'spec["edges"]', "spec.get('nodes', [])"])
def test_the_scan_sees_each_form_of_a_hand_walk(tmp_path, line):
    (tmp_path / "walker.py").write_text(f"def f(document, spec):\n    return {line}\n")
    assert hand_walks(tmp_path)


def test_the_scan_leaves_a_written_document_alone(tmp_path):
    (tmp_path / "writer.py").write_text('DOC = {"spec": {"nodes": [], "edges": []}}\nservers = server["nodes"]\n')
    assert not hand_walks(tmp_path)


@pytest.mark.parametrize("name", catalog.template_names())
def test_the_view_of_a_document_is_its_validated_spec(name):
    document = catalog.template(name)
    assert ApplicationSpec.from_document(document) == validate_application(document)
    stored = validate_application(document).to_document()
    assert ApplicationSpec.from_document(stored) == validate_application(document)


def test_a_changed_node_or_an_added_one_is_a_valid_document():
    spec = ApplicationSpec.from_document(catalog.template("iot-ts"))
    changed = spec.replace_node("api", shards=1, config={"rate": "5"}).with_node(DagNode("extra", "nids", replicas=0))
    assert validate_application(changed.to_document()) == changed
    assert changed.node("api").shards == 1 and changed.node("api").config == {"rate": "5"}
    assert [n.id for n in changed.nodes] == [*(n.id for n in spec.nodes), "extra"]
    assert changed.instance_count() == spec.instance_count() - spec.node("api").instances + 2 + 1
    assert spec.node("api").shards == 6  # the original is left as it was
