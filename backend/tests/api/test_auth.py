"""Tokens and scopes: no token, no access; a read token cannot write or deploy; writes are audited."""

import pytest
from sqlalchemy import select

GENERATOR = {"generator": "fattree", "servers": 3, "server_type": "type1-smartnic"}


def _auth(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("path", ["/api/v1/clusters", "/api/v1/applications", "/api/v1/deployments",
                                  "/api/v1/jobs", "/api/v1/templates", "/api/v1/audit", "/api/v1/tokens"])
def test_every_api_route_needs_a_token(anon_client, path):
    r = anon_client.get(path)
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"
    assert "bearer token" in r.json()["message"]


def test_unknown_and_malformed_tokens_are_refused(anon_client):
    assert anon_client.get("/api/v1/clusters", headers=_auth("e3_nope")).status_code == 401
    r = anon_client.get("/api/v1/clusters", headers={"Authorization": "Basic abc"})
    assert r.status_code == 401 and "malformed" in r.json()["message"]


def test_read_token_reads_but_cannot_write_or_deploy(anon_client, make_token, client):
    client.post("/api/v1/clusters", json=GENERATOR)
    client.post("/api/v1/templates/iot-ts/instantiate", json={})
    read = _auth(make_token("read"))
    assert anon_client.get("/api/v1/clusters", headers=read).json()["total"] == 1
    r = anon_client.post("/api/v1/clusters", json=dict(GENERATOR, name="other"), headers=read)
    assert r.status_code == 403 and r.json()["code"] == "missing_scope"
    r = anon_client.post("/api/v1/deployments", headers=read,
                         json={"application": "iot-ts", "cluster": "fattree-3-type1-smartnic"})
    assert r.status_code == 403 and "deploy" in r.json()["message"]
    assert client.get("/api/v1/deployments").json()["total"] == 0


def test_write_token_cannot_deploy_nor_manage_tokens(anon_client, make_token):
    write = _auth(make_token("write"))
    assert anon_client.post("/api/v1/clusters", json=GENERATOR, headers=write).status_code == 201
    assert anon_client.post("/api/v1/deployments", headers=write,
                            json={"application": "x", "cluster": "y"}).status_code == 403
    assert anon_client.get("/api/v1/audit", headers=write).status_code == 403
    assert anon_client.post("/api/v1/tokens", headers=write, json={"name": "x", "scopes": ["admin"]}).status_code == 403


def test_token_secret_is_shown_once_and_only_its_hash_is_stored(client, anon_client):
    from e3.core.db import session_scope
    from e3.core.security import hash_token
    from e3.models import ApiToken

    r = client.post("/api/v1/tokens", json={"name": "ci", "scopes": ["read", "deploy"]})
    assert r.status_code == 201
    secret = r.json()["token"]
    with session_scope() as session:
        row = session.scalar(select(ApiToken).where(ApiToken.name == "ci"))
        assert row.token_hash == hash_token(secret)
        assert secret not in (row.token_hash, row.prefix)
    listed = client.get("/api/v1/tokens").json()["items"]
    assert all("token" not in t for t in listed)
    assert anon_client.get("/api/v1/jobs", headers=_auth(secret)).status_code == 200


def test_unknown_scope_is_refused(client):
    r = client.post("/api/v1/tokens", json={"name": "ci", "scopes": ["read", "root"]})
    assert r.status_code == 422
    assert r.json()["errors"][0]["field"] == "scopes" and "root" in r.json()["message"]


def test_revoked_token_stops_working(client, anon_client):
    created = client.post("/api/v1/tokens", json={"name": "tmp", "scopes": ["read"]}).json()
    assert anon_client.get("/api/v1/jobs", headers=_auth(created["token"])).status_code == 200
    assert client.delete(f"/api/v1/tokens/{created['id']}").json()["revoked_at"] is not None
    assert anon_client.get("/api/v1/jobs", headers=_auth(created["token"])).status_code == 401


def test_every_write_is_audited_with_token_action_target_and_time(client):
    client.post("/api/v1/clusters", json=GENERATOR)
    client.post("/api/v1/templates/iot-ts/instantiate", json={"name": "thermo"})
    client.delete("/api/v1/clusters/fattree-3-type1-smartnic")
    entries = [e for e in client.get("/api/v1/audit").json()["items"] if e["action"] != "token.create"]
    assert [(e["action"], e["target"]) for e in entries] == [
        ("cluster.delete", "cluster/fattree-3-type1-smartnic"),
        ("application.create", "application/thermo"),
        ("cluster.create", "cluster/fattree-3-type1-smartnic"),
    ]
    assert all(e["token_name"] == "admin" and e["ts"] for e in entries)


def test_local_token_is_not_handed_out_outside_local_mode(anon_client):
    assert anon_client.get("/api/v1/local-token").status_code == 404
