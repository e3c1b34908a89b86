"""The `.e3/env` file that `e3 up` writes (E3_URL, E3_TOKEN) and the CLI reads."""

from pathlib import Path


def read_env_file(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and not key.startswith("#"):
            values[key.strip()] = value.strip().strip('"')
    return values


def find_env_file(start: Path | None = None) -> Path | None:
    """The nearest `.e3/env` in this folder or above it."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / ".e3" / "env"
        if candidate.is_file():
            return candidate
    return None


def write_env_file(env_file: Path, url: str, token: str, controller: str | None = None) -> None:
    env_file.parent.mkdir(parents=True, exist_ok=True)
    env_file.touch(mode=0o600, exist_ok=True)
    env_file.chmod(0o600)  # it holds an admin secret
    extra = f"E3_CONTROLLER={controller}\n" if controller else ""
    env_file.write_text(f"# written by `e3 up`; source it or let the e3 CLI read it\nE3_URL={url}\nE3_TOKEN={token}\n"
                        + extra)
