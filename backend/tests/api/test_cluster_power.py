"""A cluster's power sources (PUT/GET /api/v1/clusters/{name}/power): stored as given, and bad input is a 422
naming the field (an address, a port, a credentials file missing or readable by others, an unknown server,
a precedence E3 cannot follow)."""

import os

import pytest


@pytest.fixture
def cluster(client):
    assert client.post("/api/v1/clusters", json={"generator": "fattree", "servers": 2, "server_type": "type2-smartnic",
                                                 "name": "metered"}).status_code == 201
    return sorted({n["server"] for n in client.get("/api/v1/clusters/metered/nodes").json()["items"]})


@pytest.fixture
def cred(tmp_path):
    path = tmp_path / "bmc.cred"
    path.write_text("admin\nsecret\n")
    os.chmod(path, 0o600)
    return str(path)


def test_the_default_is_the_agents_own_figures_and_a_config_is_stored_as_given(client, cluster, cred):
    assert client.get("/api/v1/clusters/metered/power").json() == {"precedence": ["rapl", "model"], "bmcs": {},
                                                                    "polled": False}
    doc = {"precedence": ["ipmi", "rapl", "model"],
           "bmcs": {cluster[0]: {"address": "127.0.0.1", "port": 6230, "credentials_file": cred}}}
    r = client.put("/api/v1/clusters/metered/power", json=doc)
    assert r.status_code == 200, r.text
    expected = {"precedence": ["ipmi", "rapl", "model"], "polled": True,
                "bmcs": {cluster[0]: {"address": "127.0.0.1", "port": 6230, "credentials_file": cred,
                                      "interface": "lanplus"}}}
    assert r.json() == expected
    assert client.get("/api/v1/clusters/metered/power").json() == expected
    assert "secret" not in r.text


def _refused(client, doc):
    r = client.put("/api/v1/clusters/metered/power", json=doc)
    assert r.status_code == 422, r.text
    return {e["field"]: e["message"] for e in r.json()["errors"]}


@pytest.mark.parametrize(("bmc", "field", "says"), [
    ({"address": "not an address!", "credentials_file": "CRED"}, "address", "not an IP address or a host name"),
    ({"address": "10.0.0.1", "port": 70000, "credentials_file": "CRED"}, "port", "65535"),
    ({"address": "10.0.0.1", "port": 0, "credentials_file": "CRED"}, "port", "1"),
    ({"address": "10.0.0.1", "credentials_file": "/nonexistent/bmc.cred"}, "credentials_file", "does not exist"),
    ({"address": "10.0.0.1", "credentials_file": "relative.cred"}, "credentials_file", "absolute path"),
    ({"credentials_file": "CRED"}, "address", "required for interface lanplus"),
    ({"address": "10.0.0.1"}, "credentials_file", "required for interface lanplus"),
    ({"address": "10.0.0.1", "credentials_file": "CRED", "interface": "serial"}, "interface", "lanplus"),
])
def test_a_bad_bmc_is_refused_naming_its_field(client, cluster, cred, bmc, field, says):
    bmc = {k: cred if v == "CRED" else v for k, v in bmc.items()}
    errors = _refused(client, {"precedence": ["ipmi", "model"], "bmcs": {cluster[0]: bmc}})
    assert says in errors[f"bmcs.{cluster[0]}.{field}"]
    assert client.get("/api/v1/clusters/metered/power").json()["polled"] is False  # nothing stored


def test_a_credentials_file_others_can_read_is_refused(client, cluster, cred):
    os.chmod(cred, 0o644)
    errors = _refused(client, {"precedence": ["ipmi", "model"],
                               "bmcs": {cluster[0]: {"address": "10.0.0.1", "credentials_file": cred}}})
    assert "accessible by group or others (mode 0644)" in errors[f"bmcs.{cluster[0]}.credentials_file"]


def test_an_unknown_server_and_a_bad_precedence_are_refused(client, cluster, cred):
    errors = _refused(client, {"bmcs": {"nope": {"address": "10.0.0.1", "credentials_file": cred}}})
    assert "has no server 'nope'" in errors["bmcs.nope"]
    for precedence, says in ((["rapl", "ipmi", "model"], "ipmi comes first"), (["ipmi", "rapl"], "end with model"),
                             (["ipmi", "ipmi", "model"], "twice"), (["ipmi", "gas"], "")):
        assert says in _refused(client, {"precedence": precedence})["precedence" if says else "precedence[1]"]
    assert client.put("/api/v1/clusters/nope/power", json={}).status_code == 404
