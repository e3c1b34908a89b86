"""The Alembic migrations build exactly the schema the models describe (no drift either way)."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from e3.core.db import get_engine
from e3.models import Base

# Day partitions of the rollup tables are made at run time, not by a migration.
IGNORED_TABLES_PREFIXES = ("node_rollups_", "instance_rollups_")


def _include(obj, name, type_, reflected, compare_to) -> bool:
    return not (type_ == "table" and name and name.startswith(IGNORED_TABLES_PREFIXES))


def test_the_migrated_database_matches_the_models(backing_services):
    with get_engine().connect() as conn:
        context = MigrationContext.configure(conn, opts={"include_object": _include, "compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    assert diff == [], "\n".join(map(str, diff))
