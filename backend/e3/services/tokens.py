"""API tokens: create (the secret is returned once), authenticate, authorize a bearer, list, revoke."""

import uuid
from datetime import datetime, timedelta, timezone

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from e3.core.errors import FieldError, Forbidden, NotFound, Unauthorized, ValidationFailed
from e3.core.security import SCOPES, Actor, effective_scopes, generate_token, hash_token
from e3.models import ApiToken
from e3.schemas.common import PageParams
from e3.services import audit
from e3.services.pagination import paginate

# last_used_at is refreshed at most this often, so reads do not write on every request.
_LAST_USED_RESOLUTION = timedelta(seconds=60)


def check_scopes(scopes: list[str]) -> list[str]:
    bad = [s for s in scopes if s not in SCOPES]
    if bad:
        raise ValidationFailed([FieldError("scopes", f"unknown scope(s) {', '.join(bad)}; valid: {', '.join(SCOPES)}",
                                           "unknown_scope", {"valid": list(SCOPES)})])
    return sorted(set(scopes), key=SCOPES.index)


def create_token(session: Session, name: str, scopes: list[str], actor: Actor,
                 expires_in_days: int | None = None) -> tuple[ApiToken, str]:
    secret = generate_token()
    expires = datetime.now(timezone.utc) + timedelta(days=expires_in_days) if expires_in_days else None
    row = ApiToken(id=uuid.uuid4(), name=name, prefix=secret[:10], token_hash=hash_token(secret),
                   scopes=check_scopes(scopes), created_by=actor.name, expires_at=expires)
    session.add(row)
    audit.record(session, actor, "token.create", f"token/{row.id}", name=name, scopes=row.scopes)
    return row, secret


def authenticate(session: Session, secret: str) -> Actor | None:
    """The actor for a presented token, or None when it is unknown, revoked or expired."""
    row = session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(secret)))
    now = datetime.now(timezone.utc)
    if row is None or row.revoked_at is not None or (row.expires_at and row.expires_at <= now):
        return None
    if row.last_used_at is None or now - row.last_used_at > _LAST_USED_RESOLUTION:
        row.last_used_at = now
    return Actor(token_id=row.id, name=row.name, scopes=frozenset(effective_scopes(row.scopes)))


def authorize_bearer(session: Session, scope: str, *, how_to_send: str, authorization: str | None = None,
                     token: str | None = None) -> Actor:
    """The actor for a token that grants `scope`: the one check of HTTP, WebSocket and gRPC calls alike.

    The token comes bare (`token`, e.g. from a WebSocket subprotocol) or as an `Authorization`-style value
    `Bearer <token>`. Unauthorized when it is missing (the message ends with `how_to_send`, the transport's
    way to send one), malformed, unknown, revoked or expired; Forbidden when it lacks `scope`.
    """
    if token is None:
        if not authorization:
            raise Unauthorized(f"missing bearer token: {how_to_send}")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("malformed Authorization header: expected 'Bearer <token>'")
    actor = authenticate(session, token.strip())
    if actor is None:
        raise Unauthorized("invalid, revoked or expired token")
    if not actor.can(scope):
        raise Forbidden(f"token '{actor.name}' lacks the '{scope}' scope for this operation", code="missing_scope")
    return actor


def is_active(session: Session, secret: str) -> bool:
    return authenticate(session, secret) is not None


def inactive_among(session: Session, token_ids: list[uuid.UUID]) -> set[uuid.UUID]:
    """Those of `token_ids` that no longer authenticate: revoked, expired or gone. One indexed query."""
    now = datetime.now(timezone.utc)
    active = session.scalars(select(ApiToken.id).where(
        ApiToken.id.in_(token_ids), ApiToken.revoked_at.is_(None),
        or_(ApiToken.expires_at.is_(None), ApiToken.expires_at > now)))
    return set(token_ids) - set(active)


def list_tokens(session: Session, page: PageParams) -> tuple[list[ApiToken], int]:
    return paginate(session, select(ApiToken).order_by(ApiToken.created_at.desc()), page)


def revoke_token(session: Session, token_id: uuid.UUID, actor: Actor) -> ApiToken:
    row = session.get(ApiToken, token_id)
    if row is None:
        raise NotFound(f"token {token_id} not found")
    if row.revoked_at is None:
        row.revoked_at = datetime.now(timezone.utc)
        audit.record(session, actor, "token.revoke", f"token/{row.id}", name=row.name)
    return row
