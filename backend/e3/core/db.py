"""Engines and sessions, created lazily from the settings.

Background processes (worker, controller) share `get_engine`. The API serves each request with a session of
`request_session_scope` instead: a pool of its own, exactly as large as the number of requests admitted at
once (e3/api/admission.py), and Postgres timeouts on every connection, so that no request waits forever for a
lock, a statement or a connection. They are not applied to background work on purpose: a migration holds an
advisory lock on an idle transaction for as long as it runs.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from sqlalchemy import Engine, create_engine, make_url
from sqlalchemy.orm import Session, sessionmaker

from e3.core.config import Settings, get_settings

CONNECT_TIMEOUT_S = 5


@cache
def get_engine() -> Engine:
    return create_engine(_database_url(), pool_pre_ping=True, pool_size=5, max_overflow=10)


def _database_url() -> str:
    url = get_settings().database_url
    if not url:
        raise RuntimeError("DATABASE_URL is not set (run `e3 up`, or set it to a PostgreSQL URL)")
    return url


def request_timeouts(settings: Settings) -> str:
    """libpq `options` setting the request sessions' timeouts (0 leaves one off)."""
    return " ".join(f"-c {name}={value}" for name, value in (
        ("lock_timeout", settings.db_lock_timeout_ms), ("statement_timeout", settings.db_statement_timeout_ms),
        ("idle_in_transaction_session_timeout", settings.db_idle_in_transaction_timeout_ms)))


@cache
def get_request_engine() -> Engine:
    """The API requests' engine: api_db_connections connections at most, no overflow (the admission limit is
    the same number, so an admitted request never waits for one). A database that does not answer a connect
    within CONNECT_TIMEOUT_S is down (503), not a hang."""
    settings = get_settings()
    return create_engine(_database_url(), pool_pre_ping=True, pool_size=settings.api_db_connections,
                         max_overflow=0, pool_timeout=CONNECT_TIMEOUT_S,
                         connect_args={"options": request_timeouts(settings), "connect_timeout": CONNECT_TIMEOUT_S})


def forget_engines() -> None:
    """Drop the cached engines and session factories (after the settings changed: tests, benchmarks)."""
    for cached in (get_engine, get_request_engine, _session_factory, _request_session_factory):
        cached.cache_clear()


def libpq_url(database_url: str) -> str:
    """The SQLAlchemy URL (postgresql+psycopg://...) as a libpq connection string (for raw psycopg, LISTEN)."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


@cache
def _session_factory() -> sessionmaker[Session]:
    return sessionmaker(get_engine(), expire_on_commit=False)


@cache
def _request_session_factory() -> sessionmaker[Session]:
    return sessionmaker(get_request_engine(), expire_on_commit=False)


@contextmanager
def session_scope() -> Iterator[Session]:
    """A session committed on success and rolled back on any error: nothing half-written."""
    with _committed(_session_factory()()) as session:
        yield session


@contextmanager
def request_session_scope() -> Iterator[Session]:
    """session_scope for an API request: on the request engine, with its timeouts."""
    with _committed(_request_session_factory()()) as session:
        yield session


@contextmanager
def _committed(session: Session) -> Iterator[Session]:
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def in_session(fn, *args, **kwargs):
    """fn(session, *args, **kwargs) in a transaction of its own, committed when it returns (for
    asyncio.to_thread from the controller's loop)."""
    with session_scope() as session:
        return fn(session, *args, **kwargs)
