"""Generate the Python gRPC code from proto/ into e3/rpc/gen/ (built, never committed).

Run `python -m e3.rpc.codegen` (the Makefile's `backend` target does); importing `e3.rpc.pb`
runs it too when the generated code is missing or older than a .proto, so a fresh clone works.
"""

import fcntl
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

GEN_DIR = Path(__file__).resolve().parent / "gen"
GEN_PACKAGE = "e3.rpc.gen"


def proto_dir() -> Path:
    """proto/ at the repository root, or E3_PROTO_DIR (an image that copies it elsewhere)."""
    return Path(os.environ.get("E3_PROTO_DIR") or Path(__file__).resolve().parents[3] / "proto")


def _outputs(proto: Path, root: Path) -> list[Path]:
    rel = proto.relative_to(root).with_suffix("")
    return [GEN_DIR / rel.parent / f"{rel.name}_pb2.py", GEN_DIR / rel.parent / f"{rel.name}_pb2_grpc.py"]


def is_stale() -> bool:
    root = proto_dir()
    if not root.is_dir():
        return False  # an installed copy without the sources: use what was generated at build time
    for proto in root.rglob("*.proto"):
        mtime = proto.stat().st_mtime
        if any(not out.is_file() or out.stat().st_mtime < mtime for out in _outputs(proto, root)):
            return True
    return False


def _rewrite_imports(path: Path) -> None:
    # protoc writes absolute imports after the proto package (`from e3.agent.v1 import ...`), which
    # would resolve inside our own `e3` package; point them into the gen package instead.
    text = path.read_text()
    fixed = re.sub(r"^from e3\.(\S+) import", rf"from {GEN_PACKAGE}.e3.\1 import", text, flags=re.M)
    if fixed != text:
        path.write_text(fixed)


def generate() -> list[Path]:
    """Run protoc on every .proto; replace the generated files atomically. Returns the files written."""
    from grpc_tools import protoc
    import grpc_tools

    root = proto_dir()
    protos = sorted(root.rglob("*.proto"))
    if not protos:
        raise RuntimeError(f"no .proto files under {root}")
    GEN_DIR.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(dir=GEN_DIR, prefix=".tmp-") as tmp:
        include = Path(grpc_tools.__file__).parent / "_proto"
        args = ["grpc_tools.protoc", f"-I{root}", f"-I{include}", f"--python_out={tmp}", f"--pyi_out={tmp}",
                f"--grpc_python_out={tmp}", *map(str, protos)]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed on {root}")
        for path in sorted(Path(tmp).rglob("*.py*")):
            _rewrite_imports(path)
            rel = path.relative_to(tmp)
            target = GEN_DIR / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
            written.append(target)
    for package in {GEN_DIR, *(p.parent for p in written)}:
        while package != GEN_DIR.parent:
            (package / "__init__.py").touch()
            package = package.parent
    return written


def ensure_generated() -> None:
    """Generate when missing or stale; safe when several processes start at once."""
    if not is_stale():
        return
    GEN_DIR.mkdir(parents=True, exist_ok=True)
    with open(GEN_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_stale():  # another process may have done it while we waited
            generate()


def main() -> None:
    if "--clean" in sys.argv:
        shutil.rmtree(GEN_DIR, ignore_errors=True)
    files = generate()
    print(f"generated {len(files)} files under {GEN_DIR}")


if __name__ == "__main__":
    main()
