"""The emulated BMC speaks real IPMI over LAN: Debian's ipmitool (lanplus) and E3's reader (pyghmi's client)
read its DCMI power reading; its fault modes and wrong credentials fail as a real BMC's would."""

import os
import signal
import subprocess
import time

import pytest
from emulated_bmc import private_file, start_bmc, stop_bmc

from e3.energy.ipmi import IpmiError, LanReader

if not os.path.exists("/usr/bin/ipmitool"):  # scripts/install-system-deps test installs it
    pytest.fail("ipmitool is not installed: run scripts/install-system-deps test", pytrace=False)


@pytest.fixture
def bmc(tmp_path):
    proc, bmc = start_bmc(tmp_path, 345)
    yield bmc
    stop_bmc(proc)


def _ipmitool(bmc, password="secret"):
    passfile = private_file(bmc["dir"] / "pass", password)
    return subprocess.run(["ipmitool", "-I", "lanplus", "-H", "127.0.0.1", "-p", str(bmc["port"]), "-U", "admin",
                           "-f", str(passfile), "-N", "1", "-R", "1", "dcmi", "power", "reading"],
                          capture_output=True, text=True, timeout=30)


def test_ipmitool_reads_the_power_the_bmc_is_given(bmc):
    done = _ipmitool(bmc)
    assert done.returncode == 0, done.stderr
    assert "Instantaneous power reading:                   345 Watts" in done.stdout
    assert "Power reading state is:                   activated" in done.stdout
    bmc["watts"].write_text("512")
    assert "512 Watts" in _ipmitool(bmc).stdout


def test_ipmitool_is_refused_with_a_wrong_password(bmc):
    done = _ipmitool(bmc, "not-the-password")
    assert done.returncode != 0 and "345 Watts" not in done.stdout


def test_the_lan_reader_reads_it_and_each_fault_fails_with_its_reason(bmc):
    reader = LanReader("127.0.0.1", bmc["port"], bmc["creds"], timeout_s=3.0)
    try:
        assert reader.read().current_watts == 345
        bmc["watts"].write_text("garbage")
        with pytest.raises(IpmiError, match="3 bytes long"):
            reader.read()
        bmc["watts"].write_text("inactive")
        with pytest.raises(IpmiError, match="not active"):
            reader.read()
        bmc["watts"].write_text("invalid")
        with pytest.raises(IpmiError, match="0xc1"):
            reader.read()
        bmc["watts"].write_text("silent")
        with pytest.raises(IpmiError, match="no answer"):
            reader.read()
    finally:
        reader.close()


def test_the_lan_reader_is_refused_wrong_credentials(bmc):
    for text, says in (("admin\nwrong\n", "refused the credentials"), ("mallory\nsecret\n", "Unauthorized name")):
        private_file(bmc["creds"].parent / "client.cred", text)
        reader = LanReader("127.0.0.1", bmc["port"], bmc["creds"].parent / "client.cred", timeout_s=3.0)
        try:
            with pytest.raises(IpmiError, match=says):
                reader.read()
        finally:
            reader.close()


def test_the_lan_reader_reads_again_after_the_bmc_froze(tmp_path):
    """A BMC that stops answering mid-request (frozen, then back) is read again once it answers: the reader
    never stays stuck on the request it lost."""
    proc, bmc = start_bmc(tmp_path, 345)
    reader = LanReader("127.0.0.1", bmc["port"], bmc["creds"], timeout_s=1.0, abandon_after_s=3.0)
    try:
        assert reader.read().current_watts == 345
        os.kill(proc.pid, signal.SIGSTOP)
        with pytest.raises(IpmiError, match="no answer"):
            reader.read()
        time.sleep(1.0)
        bmc["watts"].write_text("400")
        os.kill(proc.pid, signal.SIGCONT)
        deadline, last = time.monotonic() + 30.0, None
        while time.monotonic() < deadline:
            try:
                assert reader.read().current_watts == 400
                break
            except IpmiError as e:
                last = e
                time.sleep(0.5)
        else:
            pytest.fail(f"not read again within 30 s of the BMC's return: {last}")
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        reader.close()
        stop_bmc(proc)
