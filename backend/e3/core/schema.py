"""Alembic, driven programmatically: `e3 migrate` and the readiness check use it."""

import os
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

import e3


def migrations_dir() -> Path:
    """The repository's migrations/ (or E3_MIGRATIONS_DIR in an installed image)."""
    override = os.environ.get("E3_MIGRATIONS_DIR")
    if override:
        return Path(override)
    return Path(e3.__file__).resolve().parents[2] / "migrations"


def alembic_config(database_url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return cfg


def upgrade_to_head(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "head")


def head_revision() -> str:
    return ScriptDirectory(str(migrations_dir())).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()
