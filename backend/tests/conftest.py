"""Fixtures: a real embedded PostgreSQL and Redis for the session, a real Celery worker process,
a real API server process for CLI tests, and tokens of each scope."""

import os
import subprocess
import sys

import httpx
import pytest
from sqlalchemy import text

from e3.core.embedded import EmbeddedPostgres, EmbeddedRedis, free_tcp_port
from helpers import start_process, stop_process

KEEP_TABLES = {"service_types", "server_types", "alembic_version"}


def _reset_caches() -> None:
    from e3.core import config, db

    config.get_settings.cache_clear()
    db.forget_engines()


@pytest.fixture(scope="session")
def backing_services(tmp_path_factory):
    """Real Postgres and Redis (embedded unless E3_TEST_DATABASE_URL / E3_TEST_REDIS_URL are given)."""
    root = tmp_path_factory.mktemp("services")
    pg = redis = None
    db_url, redis_url = os.environ.get("E3_TEST_DATABASE_URL"), os.environ.get("E3_TEST_REDIS_URL")
    if not db_url:
        pg = EmbeddedPostgres(root / "postgres")
        db_url = pg.start()
    if not redis_url:
        redis = EmbeddedRedis(root / "redis")
        redis_url = redis.start()
    os.environ.update(DATABASE_URL=db_url, REDIS_URL=redis_url, E3_DATA_DIR=str(root / "data"))
    _reset_caches()
    from e3.services.bootstrap import prepare_database

    prepare_database(db_url)
    # postgres: the embedded server (None for an external one), for the chaos tests that stop it
    yield {"database_url": db_url, "redis_url": redis_url, "root": root, "postgres": pg}
    from e3.core.db import get_engine

    get_engine().dispose()
    if redis:
        redis.stop()
    if pg:
        pg.stop()


@pytest.fixture(autouse=True)
def clean_database(request, backing_services):
    """Every test starts from an empty database (catalogue kept)."""
    from e3.core.db import get_engine
    from e3.models import Base

    names = [t.name for t in Base.metadata.sorted_tables if t.name not in KEEP_TABLES]
    with get_engine().begin() as conn:
        conn.execute(text(f"TRUNCATE {', '.join(names)} RESTART IDENTITY CASCADE"))
    yield


@pytest.fixture
def make_token(backing_services):
    """make_token("read") -> a fresh secret with those scopes."""
    from e3.core.db import session_scope
    from e3.core.security import SYSTEM
    from e3.services.tokens import create_token

    def make(*scopes: str, name: str = "test") -> str:
        with session_scope() as session:
            return create_token(session, name, list(scopes), SYSTEM)[1]

    return make


@pytest.fixture
def admin_token(make_token) -> str:
    return make_token("admin", name="admin")


@pytest.fixture
def client(backing_services, admin_token):
    """The ASGI app in process, authenticated as admin."""
    from fastapi.testclient import TestClient

    from e3.api.main import app

    with TestClient(app, headers={"Authorization": f"Bearer {admin_token}"}) as c:
        yield c


@pytest.fixture
def anon_client(backing_services):
    from fastapi.testclient import TestClient

    from e3.api.main import app

    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="session")
def worker(backing_services):
    """A real Celery worker process (not eager mode) on the test Redis and Postgres."""
    proc = start_process(["worker", "--concurrency", "1"], backing_services, "worker.log",
                         lambda log: b"ready." in log)
    yield proc
    stop_process(proc)


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture(scope="session")
def api_server(backing_services):
    """A real `e3 api` process on a free port; yields its base URL."""
    port = free_tcp_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_process(["api", "--port", str(port)], backing_services, "api.log", lambda log: _answers(url))
    yield url
    stop_process(proc)


@pytest.fixture
def e3(api_server, worker, admin_token, tmp_path):
    """Run `e3 ARGS...` with E3_URL/E3_TOKEN set; returns the completed process."""

    def run(*args, token=admin_token, check=True, extra_env=None):
        env = {k: v for k, v in os.environ.items() if k not in ("E3_URL", "E3_TOKEN")}
        env.update(E3_URL=api_server, E3_TOKEN=token, **(extra_env or {}))
        proc = subprocess.run([sys.executable, "-m", "e3", *args], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
        if check:
            assert proc.returncode == 0, proc.stderr + proc.stdout
        return proc

    return run
