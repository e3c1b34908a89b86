def test_healthz_needs_no_token(anon_client):
    assert anon_client.get("/healthz").json() == {"status": "ok"}


def test_readyz_reports_postgres_redis_and_migrations(anon_client):
    r = anon_client.get("/readyz")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ready"
    assert set(body["checks"]) == {"postgres", "redis", "migrations"}
    assert all(c["ok"] for c in body["checks"].values())


def test_readyz_is_503_when_migrations_are_behind(anon_client, backing_services):
    from sqlalchemy import text

    from e3.core.db import get_engine

    with get_engine().begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'behind'"))
    try:
        r = anon_client.get("/readyz")
        assert r.status_code == 503
        assert r.json()["checks"]["migrations"]["ok"] is False
        assert "e3 migrate" in r.json()["checks"]["migrations"]["detail"]
    finally:
        from e3.core.schema import head_revision

        with get_engine().begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = :h"), {"h": head_revision()})


def test_openapi_docs_and_operation_ids(anon_client):
    assert anon_client.get("/docs").status_code == 200
    spec = anon_client.get("/openapi.json").json()
    ops = {op["operationId"] for path in spec["paths"].values() for op in path.values()}
    for expected in ("create_cluster", "list_clusters", "get_cluster", "delete_cluster", "create_application",
                     "put_application", "export_application", "list_templates", "instantiate_template",
                     "create_deployment", "get_placement", "get_job", "create_token", "list_audit"):
        assert expected in ops


def test_ui_is_served_at_root_without_token(anon_client):
    r = anon_client.get("/")
    assert r.status_code == 200
    assert "E3" in r.text
