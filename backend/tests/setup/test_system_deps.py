"""scripts/install-system-deps: the one list of system packages, checked against what the build uses,
and what a user sees when something is missing (as root, as another user, on another distribution)."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "install-system-deps"

# CMake's find_package names -> the probe in the list that stands for them (None: part of libc).
CMAKE_PACKAGES = {"OpenSSL": "pc:libcrypto", "PkgConfig": "cmd:pkg-config", "Threads": None}
CMAKE_LANGUAGES = {"C": "cmd:gcc", "CXX": "cmd:g++"}
# Commands that come with another listed one.
COMMAND_PACKAGES = {"ctest": "cmake"}
# Toolchains the script checks by version but does not install, and tools only an optional target uses.
PREREQUISITES = {"python3", "node", "npm", "go", "docker"}
OPTIONAL_TOOLS = {"clang"}  # make fuzz only; it checks for clang itself
# Shell built-ins and coreutils that every Debian has (essential packages).
BASE_COMMANDS = {
    "cd", "test", "echo", "mkdir", "touch", "rm", "find", "mv", "exit", "if", "then", "else", "fi",
    "grep", "cut", "command", "true", "false", "printf", "cp", "cat", "ln", "[", "bash", "sh",
}


def listed() -> dict[str, str]:
    """The script's list as {probe: package}."""
    out = subprocess.run(["bash", str(SCRIPT), "--list"], capture_output=True, text=True, check=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows and all(len(row) == 4 for row in rows), out
    return {probe: package for package, probe, _set, _purpose in rows}


def cmake_needs() -> set[str]:
    """The probes that the CMake files' find_package / pkg_check_modules / find_program / languages imply."""
    needs = {"cmd:cmake"}
    for path in [*REPO.glob("agents/**/CMakeLists.txt"), *REPO.glob("nic-firmware/**/CMakeLists.txt")]:
        text = re.sub(r"#[^\n]*", "", path.read_text())
        for name in re.findall(r"find_package\(\s*(\w+)", text):
            assert name in CMAKE_PACKAGES, f"{path}: find_package({name}) is not mapped to a probe in this test"
            needs.add(CMAKE_PACKAGES[name])
        for args in re.findall(r"pkg_check_modules\(([^)]*)\)", text):
            words = args.split()[1:]
            needs.update(f"pc:{w}" for w in words if w not in {"REQUIRED", "QUIET", "IMPORTED_TARGET", "GLOBAL"})
        for program in re.findall(r"find_program\(\s*\w+\s+(?:NAMES\s+)?([\w+.-]+)", text):
            needs.add(f"cmd:{program}")
        for languages in re.findall(r"(?:LANGUAGES|enable_language\()\s*([A-Z ]+)", text):
            needs.update(CMAKE_LANGUAGES[lang] for lang in languages.split() if lang in CMAKE_LANGUAGES)
    return needs - {None}


def makefile_commands() -> set[str]:
    """The first word of every command in the Makefile's recipes (quoted text and $(VAR) tools left out)."""
    commands = set()
    text = (REPO / "Makefile").read_text().replace("\\\n", " ")
    for line in text.splitlines():
        if not line.startswith("\t"):
            continue
        line = re.sub(r'"(?:\\.|[^"\\])*"' + r"|'[^']*'", "STRING", line.strip().lstrip("@-+"))
        while "$(" in line:  # make's variables and functions, innermost first
            line = re.sub(r"\$\([^()]*\)", "$VAR", line)
        for part in re.split(r"&&|\|\||;|\||\{|\}|\(|\)", line):
            words = part.split()
            while words and "=" in words[0]:  # VAR=value cmd
                words = words[1:]
            if words and re.fullmatch(r"[A-Za-z/][\w./+-]*", words[0]):
                commands.add(COMMAND_PACKAGES.get(words[0], words[0]))
    return commands


def python_commands() -> set[str]:
    """External programs the backend runs by name (argv[0] literals), e.g. ip and sysctl for the rack."""
    found = set()
    for path in (REPO / "backend" / "e3").rglob("*.py"):
        found.update(re.findall(r'(?:\b(?:run|Popen|check_output|check_call)\(|exec_argv\([^,]*,)\s*\[\s*"([\w.+-]+)"',
                                path.read_text()))
    return {name for name in found if not name.startswith("e3")}  # the project's own binaries are built


def test_the_list_holds_everything_the_build_finds():
    probes = listed()
    missing = sorted(cmake_needs() - probes.keys())
    assert not missing, f"the CMake files need {missing}: add them to scripts/install-system-deps"


def test_the_list_holds_every_tool_the_makefile_and_the_backend_run():
    probes = listed()
    tools = (makefile_commands() | python_commands()) - BASE_COMMANDS - PREREQUISITES - OPTIONAL_TOOLS
    tools.discard("/usr/bin/chromium")
    missing = sorted(tool for tool in tools if f"cmd:{tool}" not in probes)
    assert not missing, f"the Makefile or backend run {missing}: add them to scripts/install-system-deps"
    assert "file:/usr/bin/chromium" in probes, "the e2e tests drive /usr/bin/chromium"
    assert "cmd:prometheus" in probes, "tests/integration/test_prometheus_scrape.py runs a real Prometheus"


def test_the_extractors_see_what_they_should():
    # Guards the parsing above: if it silently found nothing, the two tests before could not fail.
    assert {"pc:libdpdk", "pc:grpc++", "pc:protobuf", "cmd:protoc", "cmd:grpc_cpp_plugin", "pc:libcrypto"} <= cmake_needs()
    assert {"cmake", "npm", "python3", "clang"} <= makefile_commands()
    assert {"ip", "sysctl"} <= python_commands()


def test_the_prerequisites_are_version_checked():
    source = SCRIPT.read_text()
    for tool in ("python3", "node", "npm", "go", "libdpdk"):
        assert f"command -v {tool}" in source or f"--exists {tool}" in source, tool


def test_make_up_and_make_test_check_system_packages_before_building():
    for target, argument in (("up", "up"), ("test", "test")):
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}  # under make test
        dry = subprocess.run(["make", "--no-print-directory", "-n", "-B", target], cwd=REPO, capture_output=True,
                             text=True, env=env)
        first = next(line for line in dry.stdout.splitlines() if line.strip())
        assert first == f"bash scripts/install-system-deps {argument}", f"make {target} starts with {first!r}"


def run_script(*args: str, env_extra: dict | None = None, path_dirs: list[Path] | None = None,
               as_other_user: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env_extra or {})}
    if path_dirs is not None:
        env["PATH"] = ":".join(str(d) for d in path_dirs)
    argv = ["bash", str(SCRIPT), *args]
    if as_other_user and os.geteuid() == 0:
        argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture
def no_pkgconfig_modules(tmp_path):
    """pkg-config that finds no module: the build's libraries (DPDK, gRPC, OpenSSL) look missing."""
    empty = tmp_path / "pc"
    empty.mkdir()
    return {"PKG_CONFIG_LIBDIR": str(empty), "PKG_CONFIG_PATH": str(empty)}


def test_with_everything_there_it_is_silent():
    done = run_script("test")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""


def test_a_user_who_is_not_root_gets_the_exact_command_and_a_non_zero_exit(no_pkgconfig_modules):
    done = run_script("up", env_extra=no_pkgconfig_modules, as_other_user=True)
    assert done.returncode == 1
    assert "sudo apt-get update && sudo apt-get install -y libssl-dev libgrpc++-dev libprotobuf-dev libdpdk-dev" \
        in done.stderr, done.stderr
    assert "libdpdk-dev: DPDK (22.11 or later)" in done.stderr


def fake_bin(tmp_path: Path, name: str, script: str) -> None:
    tool = tmp_path / "bin" / name
    tool.parent.mkdir(exist_ok=True)
    tool.write_text("#!/bin/sh\n" + script + "\n")
    tool.chmod(0o755)


def test_another_distribution_gets_the_packages_by_purpose(tmp_path, no_pkgconfig_modules):
    tools = tmp_path / "tools"
    tools.mkdir()
    # A PATH of the real tools the script uses, without apt-get or dpkg.
    for name in ("bash", "id", "sort", "head", "grep", "tr", "pkg-config", "python3", "node", "npm", "go",
                 "make", "gcc", "g++", "cmake", "ip", "sysctl"):
        if real := shutil.which(name):
            (tools / name).symlink_to(real)
    done = run_script("up", env_extra=no_pkgconfig_modules, path_dirs=[tools])
    assert done.returncode == 1
    assert "not a Debian-like system" in done.stderr
    assert "libdpdk-dev: DPDK (22.11 or later) for the emulated SmartNIC" in done.stderr
    assert "apt-get install" not in done.stderr


def test_too_old_toolchains_are_named_with_the_version_found(tmp_path):
    fake_bin(tmp_path, "python3", 'case "$*" in *version_info*) echo 3.9.2;; esac')
    fake_bin(tmp_path, "node", "echo v18.19.0")
    real_pkg_config = shutil.which("pkg-config")
    fake_bin(tmp_path, "pkg-config",
             f'if [ "$1" = --modversion ] && [ "$2" = libdpdk ]; then echo 21.11.2; else exec {real_pkg_config} "$@"; fi')
    done = run_script("up", path_dirs=[tmp_path / "bin", *map(Path, os.environ["PATH"].split(":"))])
    assert done.returncode == 1
    assert "E3 needs Python >= 3.11; found 3.9.2" in done.stderr
    assert "E3 needs Node.js >= 20.19 (the UI's build, vite); found 18.19.0" in done.stderr
    assert "E3 needs DPDK >= 22.11; found 21.11.2" in done.stderr


def test_an_unknown_argument_is_refused():
    done = run_script("everything")
    assert done.returncode == 2
    assert "unknown argument 'everything'" in done.stderr
