"""Host power from Linux powercap RAPL counters (docs/energy.md "RAPL").

Layout read (default root /sys/class/powercap):

    intel-rapl:0/name                  "package-0"
    intel-rapl:0/energy_uj             cumulative energy, µJ, wraps at max_energy_range_uj
    intel-rapl:0/max_energy_range_uj
    intel-rapl:0/intel-rapl:0:2/name   "dram"   (its own counter: DRAM is not inside the package's)

Zones read: every top-level `intel-rapl:N` whose name starts with "package" (a "psys" platform zone already
contains the packages and would count them twice) and, under each, the subzone named "dram" when there is
one (core/uncore subzones are inside the package's counter and are skipped). Several packages are summed.

Two readings give joules per zone; a counter that went down wrapped once, so its energy is
max_energy_range_uj + 1 - before + after. Never negative.

Anything that stops an honest reading raises `RaplUnavailable` with the reason in words ("no RAPL here: ...",
"permission denied reading ...", "zone file ... is missing"); the caller falls back to its next source and can
show the reason. Nothing else is raised for a broken tree.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_ROOT = Path("/sys/class/powercap")
SOURCE = "rapl"


class RaplUnavailable(Exception):
    """RAPL cannot be read here; `reason` says why, for an event or a log line."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class RaplZone:
    path: Path  # the zone's directory
    name: str  # e.g. "package-0" or "package-0/dram"
    max_energy_range_uj: int  # the counter wraps after this value


@dataclass(frozen=True)
class RaplReading:
    at_s: float  # monotonic clock, s
    energy_uj: dict[str, int]  # zone name -> counter


@dataclass(frozen=True)
class RaplPower:
    watts: float
    joules: float
    seconds: float
    source: str = SOURCE


def _read_text(path: Path) -> str:
    try:
        return path.read_text().strip()
    except PermissionError:
        raise RaplUnavailable(f"permission denied reading {path} (energy_uj is root-only on recent kernels)") from None
    except FileNotFoundError:
        raise RaplUnavailable(f"{path} is missing (the zone disappeared?)") from None
    except OSError as e:
        raise RaplUnavailable(f"cannot read {path}: {e.strerror or e}") from None


def _read_int(path: Path) -> int:
    text = _read_text(path)
    try:
        value = int(text)
    except ValueError:
        raise RaplUnavailable(f"{path} holds {text[:40]!r}, not a counter") from None
    if value < 0:
        raise RaplUnavailable(f"{path} holds a negative counter ({value})")
    return value


def _zone(path: Path, name: str) -> RaplZone:
    max_range = _read_int(path / "max_energy_range_uj")
    if max_range <= 0:
        raise RaplUnavailable(f"{path / 'max_energy_range_uj'} is 0: the counter's range is unknown")
    _read_int(path / "energy_uj")  # found unreadable now, not at the first heartbeat
    return RaplZone(path, name, max_range)


def discover(root: Path = DEFAULT_ROOT) -> tuple[RaplZone, ...]:
    """The package zones and their DRAM subzones under `root`, packages in index order."""
    if not root.is_dir():
        raise RaplUnavailable(f"no RAPL here: {root} does not exist")
    packages = []
    for entry in root.glob("intel-rapl:*"):
        suffix = entry.name.removeprefix("intel-rapl:")
        if suffix.isdigit() and entry.is_dir():
            packages.append((int(suffix), entry))
    zones = []
    for _, pkg in sorted(packages):
        name = _read_text(pkg / "name")
        if not name.startswith("package"):
            continue
        zones.append(_zone(pkg, name))
        for sub in sorted(pkg.glob(f"{pkg.name}:*")):
            if (sub / "name").is_file() and _read_text(sub / "name") == "dram":
                zones.append(_zone(sub, f"{name}/dram"))
    if not zones:
        raise RaplUnavailable(f"no RAPL here: no intel-rapl package zone under {root}")
    return tuple(zones)


def joules_between(before_uj: int, after_uj: int, max_energy_range_uj: int) -> float:
    """Energy between two readings of one counter, J; a counter that went down wrapped once."""
    delta = after_uj - before_uj if after_uj >= before_uj else max_energy_range_uj + 1 - before_uj + after_uj
    return max(delta, 0) / 1e6


class RaplReader:
    """Reads a machine's RAPL zones; construct it once (discovery), then `read()` at each interval."""

    def __init__(self, root: Path | str = DEFAULT_ROOT, clock: Callable[[], float] = time.monotonic):
        self.root = Path(root)
        self.zones = discover(self.root)
        self._clock = clock

    def read(self) -> RaplReading:
        return RaplReading(self._clock(), {z.name: _read_int(z.path / "energy_uj") for z in self.zones})

    def power(self, before: RaplReading, after: RaplReading) -> RaplPower:
        """Mean watts between two readings, every zone summed."""
        seconds = after.at_s - before.at_s
        if not seconds > 0:
            raise ValueError(f"after: must be later than before (got {seconds} s)")
        joules = sum(joules_between(before.energy_uj[z.name], after.energy_uj[z.name], z.max_energy_range_uj)
                     for z in self.zones)
        return RaplPower(joules / seconds, joules, seconds)
