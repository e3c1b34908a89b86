"""The package's layering (docs/architecture.md): which packages may import which, checked on the source.

Every import counts, a lazy one inside a function too: a rule broken only at run time is still broken.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "e3"

# package -> packages it must never import (each a prefix of a module name)
FORBIDDEN = {
    "e3.core": ["e3.services", "e3.tasks", "e3.api", "e3.cli", "e3.controller", "e3.live", "e3.rpc"],
    "e3.models": ["e3.services", "e3.tasks", "e3.api", "e3.cli", "e3.controller", "e3.live"],
    "e3.schemas": ["e3.services", "e3.tasks", "e3.api", "e3.cli", "e3.controller", "e3.live"],
    "e3.services": ["e3.tasks", "e3.api", "e3.cli", "e3.controller", "e3.live", "e3.rpc", "e3.bench"],
    "e3.placement": ["e3.models", "e3.core.db", "e3.services", "e3.api", "sqlalchemy", "fastapi"],
    "e3.orchestrator": ["e3.models", "e3.core.db", "e3.services", "e3.api", "sqlalchemy", "fastapi"],
    "e3.energy": ["e3.models", "e3.core.db", "e3.services", "e3.api", "sqlalchemy", "fastapi"],
    "e3.rollup": ["e3.models", "e3.core.db", "e3.services", "e3.api", "e3.controller", "sqlalchemy", "fastapi"],
    "e3.metrics": ["e3.models", "e3.core.db", "e3.services", "e3.api", "e3.controller", "sqlalchemy", "fastapi",
                   "redis"],
    # one heartbeat record for every layer, the pure ones included: it imports nothing of them
    "e3.heartbeat_record": ["e3", "sqlalchemy", "fastapi", "pydantic"],
    "e3.live": ["e3.controller", "e3.tasks", "e3.cli", "e3.rpc"],
    "e3.controller": ["e3.api", "e3.tasks", "e3.cli", "e3.live.hub", "e3.live.aggregate", "e3.live.event_feed"],
    "e3.client": ["e3.cli", "e3.services", "e3.models", "e3.api", "e3.bench"],
    "e3.emulation": ["e3.cli", "e3.bench", "e3.api"],
    "e3.bench": ["e3.cli"],
    # experiments run models and the emulated rack, never the control plane's database or web app (base.py)
    "e3.experiments": ["e3.cli", "e3.api", "e3.services", "e3.models", "e3.core.db", "e3.tasks", "sqlalchemy",
                       "fastapi"],
    "e3.api": ["e3.cli", "e3.tasks", "e3.controller", "e3.bench"],
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module `path` imports, at the top or inside a function ('from a import b' counts a and a.b)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def sources() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if "gen" not in p.relative_to(PACKAGE).parts]


def violations(package: str, forbidden: list[str]) -> list[str]:
    out = []
    for path in sources():
        name = module_name(path)
        if name != package and not name.startswith(package + "."):
            continue
        for imported in sorted(imports(path)):
            if any(imported == f or imported.startswith(f + ".") for f in forbidden):
                out.append(f"{name} imports {imported}")
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_arrow_runs_back_up(package):
    assert not violations(package, FORBIDDEN[package])


def test_the_check_sees_lazy_imports(tmp_path, monkeypatch):
    # Guards the test above: a lazy import inside a function is found.
    source = tmp_path / "lazy.py"
    source.write_text("def f():\n    from e3.tasks.migrations import migrate\n")
    assert "e3.tasks.migrations" in imports(source)
    assert "e3.tasks.migrations.migrate" in imports(source)
