"""Bringing a database to a usable state: migrations, catalogue, the local admin token."""

from pathlib import Path

from e3.core.db import session_scope
from e3.core.envfile import read_env_file
from e3.core.schema import upgrade_to_head
from e3.core.security import SYSTEM
from e3.services.catalog_seed import seed_catalog
from e3.services.tokens import create_token, is_active

LOCAL_ADMIN = "local-admin"


def prepare_database(database_url: str) -> None:
    upgrade_to_head(database_url)
    with session_scope() as session:
        seed_catalog(session)


def ensure_local_admin_token(env_file: Path) -> str:
    """Reuse the token in `env_file` while it is still valid; otherwise create a new admin token."""
    if env_file.is_file():
        token = read_env_file(env_file).get("E3_TOKEN")
        if token:
            with session_scope() as session:
                if is_active(session, token):
                    return token
    with session_scope() as session:
        _, secret = create_token(session, LOCAL_ADMIN, ["admin"], SYSTEM)
    return secret
