"""Alembic environment: the URL comes from E3 settings (DATABASE_URL), the schema from e3.models."""

from alembic import context
from sqlalchemy import create_engine, pool

import e3.models  # noqa: F401  (registers every table)
from e3.core.config import get_settings
from e3.models.base import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url") or get_settings().database_url
    if not url:
        raise RuntimeError("DATABASE_URL is not set")
    return url


def _include_object(obj, name, type_, reflected, compare_to):
    # Heartbeat partitions are created and dropped at run time, not by migrations.
    return not (type_ == "table" and name.startswith("heartbeats_"))


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True,
                      include_object=_include_object)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = create_engine(_url(), poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata, include_object=_include_object)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
