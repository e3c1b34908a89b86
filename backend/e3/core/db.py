"""Engine and sessions. One engine per process, created lazily from the settings."""

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from sqlalchemy import Engine, create_engine, make_url
from sqlalchemy.orm import Session, sessionmaker

from e3.core.config import get_settings


@cache
def get_engine() -> Engine:
    url = get_settings().database_url
    if not url:
        raise RuntimeError("DATABASE_URL is not set (run `e3 up`, or set it to a PostgreSQL URL)")
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)


def libpq_url(database_url: str) -> str:
    """The SQLAlchemy URL (postgresql+psycopg://...) as a libpq connection string (for raw psycopg, LISTEN)."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


@cache
def _session_factory() -> sessionmaker[Session]:
    return sessionmaker(get_engine(), expire_on_commit=False)


@contextmanager
def session_scope() -> Iterator[Session]:
    """A session committed on success and rolled back on any error: nothing half-written."""
    session = _session_factory()()
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
