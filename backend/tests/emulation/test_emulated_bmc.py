"""`e3 up`'s emulated BMC (E3_EMULATED_BMC): the cluster's first server gets a BMC that Debian's ipmitool
reads over IPMI LAN, with its credentials in a private file, and the cluster's power sources put IPMI first."""

import os
import stat
import subprocess

import pytest

from e3.client.api import Api
from e3.emulation import emulated_bmc
from e3.energy.ipmi import read_credentials


@pytest.mark.skipif(not os.path.exists("/usr/bin/ipmitool"), reason="ipmitool is not installed")
def test_the_first_server_gets_a_bmc_ipmi_comes_first_and_ipmitool_reads_it(api_server, admin_token, client, tmp_path):
    assert client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 2, "server_type": "beefy",
                                                 "name": "upbmc"}).status_code == 201
    proc, watts = emulated_bmc.start(Api(api_server, admin_token), "upbmc", tmp_path / "bmc")
    try:
        power = client.get("/api/v1/clusters/upbmc/power").json()
        assert power["polled"] and power["precedence"][0] == "ipmi" and list(power["bmcs"]) == ["r0000-s00"]
        bmc = power["bmcs"]["r0000-s00"]
        assert stat.S_IMODE(os.stat(bmc["credentials_file"]).st_mode) == 0o600
        creds = read_credentials(bmc["credentials_file"])
        passfile = tmp_path / "pass"
        passfile.write_text(creds.password)
        done = subprocess.run(["ipmitool", "-I", "lanplus", "-H", bmc["address"], "-p", str(bmc["port"]), "-U",
                               creds.user, "-f", str(passfile), "dcmi", "power", "reading"],
                              capture_output=True, text=True, timeout=30)
        assert "Instantaneous power reading:                   142 Watts" in done.stdout, done.stderr  # (83+201)/2
        assert watts.read_text().strip() == "142"
    finally:
        proc.terminate()
        proc.wait(10)
