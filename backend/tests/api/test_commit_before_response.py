"""A request's transaction commits before its response is sent (api/deps.py, scope="function"): a write whose
commit fails is answered as an error, never as success, and a client answered 201 finds what it created."""

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.orm import Session

from e3 import catalog
from e3.models import Application


@pytest.fixture
def refused_commits():
    """Every commit that would store a new application fails, as a commit can (a lost connection, a
    constraint checked at commit time)."""
    def mark(session: Session, flush_context, instances) -> None:
        if any(isinstance(o, Application) for o in session.new):
            session.info["refuse_commit"] = True

    def refuse(session: Session) -> None:
        if session.info.pop("refuse_commit", False) or any(isinstance(o, Application) for o in session.new):
            raise RuntimeError("commit refused by the test")

    event.listen(Session, "before_flush", mark)
    event.listen(Session, "before_commit", refuse)
    yield
    event.remove(Session, "before_commit", refuse)
    event.remove(Session, "before_flush", mark)


def test_a_write_whose_commit_fails_is_not_answered_as_created(backing_services, admin_token, refused_commits):
    from e3.api.main import app

    auth = {"Authorization": f"Bearer {admin_token}"}
    with TestClient(app, headers=auth, raise_server_exceptions=False) as c:
        r = c.post("/api/v1/applications", content=catalog.template_yaml("nfv-fin").encode(),
                   headers={"Content-Type": "application/yaml"})
        assert r.status_code >= 500, (r.status_code, r.text)
        assert c.get("/api/v1/applications/nfv-fin").status_code == 404  # and nothing was stored


def test_a_client_answered_201_finds_what_it_created(client):
    created = client.post("/api/v1/applications", content=catalog.template_yaml("nfv-fin").encode(),
                          headers={"Content-Type": "application/yaml"})
    assert created.status_code == 201
    assert client.get("/api/v1/applications/nfv-fin").status_code == 200
