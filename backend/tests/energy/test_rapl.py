"""The RAPL powercap reader against a fake sysfs tree of real files (e3.energy.rapl)."""

from pathlib import Path

import pytest

from e3.energy.rapl import DEFAULT_ROOT, RaplReader, RaplUnavailable, joules_between

MAX = 262143328850  # a real package's max_energy_range_uj


def zone(path: Path, name: str, energy_uj: int, max_uj: int = MAX) -> Path:
    path.mkdir(parents=True)
    (path / "name").write_text(name + "\n")
    (path / "energy_uj").write_text(f"{energy_uj}\n")
    (path / "max_energy_range_uj").write_text(f"{max_uj}\n")
    return path


def set_energy(path: Path, energy_uj: int) -> None:
    (path / "energy_uj").write_text(f"{energy_uj}\n")


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def two_sockets(tmp_path):
    """Two packages, each with core and dram subzones, and a psys zone that must not be counted."""
    root = tmp_path / "powercap"
    p0 = zone(root / "intel-rapl:0", "package-0", 1_000_000)
    zone(p0 / "intel-rapl:0:0", "core", 500_000)
    d0 = zone(p0 / "intel-rapl:0:1", "dram", 2_000_000, max_uj=65532610987)
    p1 = zone(root / "intel-rapl:1", "package-1", MAX - 1_000_000)  # wraps in the test
    d1 = zone(p1 / "intel-rapl:1:0", "dram", 0)
    psys = zone(root / "intel-rapl:2", "psys", 0)
    (root / "intel-rapl-mmio:0").mkdir()  # another control type: ignored
    return root, dict(p0=p0, d0=d0, p1=p1, d1=d1, psys=psys)


def test_packages_and_dram_are_summed_over_the_interval_with_wrap_around(two_sockets):
    root, z = two_sockets
    clock = Clock()
    reader = RaplReader(root, clock=clock)
    assert [zn.name for zn in reader.zones] == ["package-0", "package-0/dram", "package-1", "package-1/dram"]
    before = reader.read()
    set_energy(z["p0"], 1_000_000 + 40_000_000)  # 40 J
    set_energy(z["d0"], 2_000_000 + 5_000_000)  # 5 J
    set_energy(z["p1"], 3_000_000 - 1)  # wrapped: 1 J to the top, then 3 J
    set_energy(z["d1"], 2_000_000)  # 2 J
    set_energy(z["psys"], 999_000_000)  # not counted
    clock.now += 2.0
    power = reader.power(before, reader.read())
    assert power.source == "rapl"
    assert power.joules == pytest.approx(40 + 5 + 4 + 2, abs=1e-6)
    assert power.seconds == 2.0
    assert power.watts == pytest.approx(25.5, abs=1e-6)


def test_a_package_without_a_dram_zone_is_read_alone(tmp_path):
    root = tmp_path / "powercap"
    p0 = zone(root / "intel-rapl:0", "package-0", 0)
    clock = Clock()
    reader = RaplReader(root, clock=clock)
    assert [zn.name for zn in reader.zones] == ["package-0"]
    before = reader.read()
    set_energy(p0, 10_000_000)
    clock.now += 1.0
    assert reader.power(before, reader.read()).watts == pytest.approx(10.0)


@pytest.mark.parametrize("before, after, max_uj, joules", [
    (100, 300, 1000, 0.0002),
    (900, 100, 1000, 0.000201),  # wrapped: 1000 + 1 - 900 + 100
    (5, 5, 1000, 0.0),
    (2000, 10, 1000, 0.0),  # a counter beyond its own range (a broken driver): nothing, never negative
])
def test_joules_between_two_readings(before, after, max_uj, joules):
    assert joules_between(before, after, max_uj) == pytest.approx(joules)


def test_no_powercap_means_no_rapl_here(tmp_path):
    with pytest.raises(RaplUnavailable, match="no RAPL here"):
        RaplReader(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RaplUnavailable, match="no RAPL here"):
        RaplReader(tmp_path / "empty")


def test_a_machine_without_powercap_says_no_rapl_here():
    if DEFAULT_ROOT.is_dir():
        pytest.skip("this machine has a powercap tree")
    with pytest.raises(RaplUnavailable, match="no RAPL here"):
        RaplReader()


def test_an_unreadable_counter_says_why(tmp_path):
    root = tmp_path / "powercap"
    p0 = zone(root / "intel-rapl:0", "package-0", 0)
    (p0 / "energy_uj").unlink()
    (p0 / "energy_uj").mkdir()  # read() fails with an OSError even for root
    with pytest.raises(RaplUnavailable, match="cannot read .*energy_uj"):
        RaplReader(root)


def test_permission_denied_is_reported_as_such(tmp_path, monkeypatch):
    root = tmp_path / "powercap"
    zone(root / "intel-rapl:0", "package-0", 0)
    reader = RaplReader(root)
    # Root reads a mode-000 file anyway, so the kernel's answer to a non-root reader is simulated.
    real = Path.read_text

    def read_text(self, *args, **kwargs):
        if self.name == "energy_uj":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)
    with pytest.raises(RaplUnavailable, match="permission denied reading .*intel-rapl:0/energy_uj") as caught:
        reader.read()
    assert "root-only" in caught.value.reason


def test_garbage_and_a_vanished_zone_are_unavailable_not_crashes(tmp_path):
    root = tmp_path / "powercap"
    p0 = zone(root / "intel-rapl:0", "package-0", 0)
    reader = RaplReader(root)
    set_energy(p0, "not a number")  # type: ignore[arg-type]
    with pytest.raises(RaplUnavailable, match="not a counter"):
        reader.read()
    (p0 / "energy_uj").unlink()
    with pytest.raises(RaplUnavailable, match="is missing"):
        reader.read()
