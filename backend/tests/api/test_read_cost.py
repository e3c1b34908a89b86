"""What a read costs (issue 19, REST reads p99 <= 25 ms; docs/reliability.md, "API under concurrency and load"):
a client's stream of reads looks its token up once per trust period, not per request, while a revocation still
closes access within a second; a list's page and total come in one query."""

import time

from sqlalchemy import event, text

from e3.api.verified_tokens import TRUST_S, VerifiedTokens
from e3.core.security import Actor

APP = {"apiVersion": "e3/v1", "kind": "Application", "metadata": {"name": "a"},
       "spec": {"nodes": [{"id": "gw", "service": "api_gateway"}], "edges": []}}


def _auth(token):
    return {"Authorization": f"Bearer {token}"}


class _Statements:
    """The SQL statements the API's requests send, while in a `with`."""

    def __init__(self):
        from e3.core.db import get_request_engine

        self.engine, self.sent = get_request_engine(), []

    def _record(self, conn, cursor, statement, *args):
        self.sent.append(statement)

    def __enter__(self):
        event.listen(self.engine, "before_cursor_execute", self._record)
        return self

    def __exit__(self, *exc):
        event.remove(self.engine, "before_cursor_execute", self._record)


def test_a_burst_of_reads_with_one_token_looks_it_up_once(anon_client, make_token):
    read = _auth(make_token("read"))
    with _Statements() as sql:
        for _ in range(5):
            assert anon_client.get("/api/v1/jobs", headers=read).status_code == 200
    assert len([s for s in sql.sent if s.startswith("SELECT") and "FROM api_tokens" in s]) == 1


def test_a_token_revoked_in_the_database_is_refused_within_a_second(anon_client, make_token, backing_services):
    """Revoked by another process (another API process, the CLI, SQL): this one learns of it within TRUST_S."""
    from e3.core.db import get_engine

    secret = make_token("read")
    assert anon_client.get("/api/v1/jobs", headers=_auth(secret)).status_code == 200
    with get_engine().begin() as conn:
        conn.execute(text("UPDATE api_tokens SET revoked_at = now() WHERE name = 'test'"))
    revoked_at = time.monotonic()
    while (status := anon_client.get("/api/v1/jobs", headers=_auth(secret)).status_code) == 200:
        assert time.monotonic() - revoked_at < 1.0, "the revoked token still reads after a second"
        time.sleep(0.05)
    assert status == 401


def test_a_token_revoked_through_this_api_is_refused_at_once_even_right_after_use(client, anon_client):
    created = client.post("/api/v1/tokens", json={"name": "tmp", "scopes": ["read"]}).json()
    for _ in range(3):  # verified a moment ago
        assert anon_client.get("/api/v1/jobs", headers=_auth(created["token"])).status_code == 200
    assert client.delete(f"/api/v1/tokens/{created['id']}").status_code == 200
    r = anon_client.get("/api/v1/jobs", headers=_auth(created["token"]))
    assert r.status_code == 401 and r.json()["message"] == "invalid, revoked or expired token"


def test_a_verified_read_token_still_cannot_write(anon_client, make_token):
    read = _auth(make_token("read"))
    assert anon_client.get("/api/v1/applications", headers=read).status_code == 200
    r = anon_client.post("/api/v1/applications", json=APP, headers=read)
    assert r.status_code == 403 and r.json()["code"] == "missing_scope"


def test_a_page_and_its_total_come_in_one_query(client):
    for name in ("a", "b", "c"):
        assert client.post("/api/v1/applications", json={**APP, "metadata": {"name": name}}).status_code == 201
    client.get("/api/v1/jobs")  # the admin token verified
    with _Statements() as sql:
        r = client.get("/api/v1/jobs?limit=2")
    assert r.status_code == 200 and r.json()["total"] == 0 and len(sql.sent) == 1
    page = client.get("/api/v1/applications?limit=2&offset=1").json()
    assert [a["name"] for a in page["items"]] == ["b", "c"] and page["total"] == 3
    past_the_end = client.get("/api/v1/applications?limit=2&offset=5").json()
    assert past_the_end["items"] == [] and past_the_end["total"] == 3


def test_verified_tokens_are_trusted_for_the_trust_period_only():
    now = [100.0]
    tokens = VerifiedTokens(trust_s=TRUST_S, max_entries=2, clock=lambda: now[0])
    alice, bob = Actor("id-a", "alice", frozenset({"read"})), Actor("id-b", "bob", frozenset({"read"}))
    tokens.remember("Bearer a", alice)
    assert tokens.recall("Bearer a") == alice and tokens.recall("Bearer b") is None and tokens.recall(None) is None
    now[0] += TRUST_S
    assert tokens.recall("Bearer a") is None
    tokens.remember("Bearer a", alice)
    tokens.remember("Bearer b", bob)
    tokens.forget("id-a")
    assert tokens.recall("Bearer a") is None and tokens.recall("Bearer b") == bob
    tokens.remember("Bearer a", alice)
    tokens.remember("Bearer c", alice)  # past max_entries: never more than two kept
    assert tokens.recall("Bearer c") == alice
    assert sum(tokens.recall(h) is not None for h in ("Bearer a", "Bearer b", "Bearer c")) <= 2
