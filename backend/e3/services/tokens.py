"""API tokens: create (the secret is returned once), authenticate, authorize a bearer, list, revoke."""

import uuid
from datetime import datetime, timedelta, timezone

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from e3.core.errors import FieldError, Forbidden, NotFound, Unauthorized, ValidationFailed
from e3.core.security import SCOPES, Actor, effective_scopes, generate_token, hash_token
from e3.models import ApiToken, Cluster, Server
from e3.schemas.common import PageParams
from e3.services import audit
from e3.services.pagination import paginate

# last_used_at is refreshed at most this often, so reads do not write on every request.
_LAST_USED_RESOLUTION = timedelta(seconds=60)
INVALID_TOKEN = "invalid, revoked or expired token"


def check_scopes(scopes: list[str]) -> list[str]:
    bad = [s for s in scopes if s not in SCOPES]
    if bad:
        raise ValidationFailed([FieldError("scopes", f"unknown scope(s) {', '.join(bad)}; valid: {', '.join(SCOPES)}",
                                           "unknown_scope", {"valid": list(SCOPES)})])
    return sorted(set(scopes), key=SCOPES.index)


def agent_binding(session: Session, scopes: list[str], cluster: str | None,
                  servers: list[str] | None) -> tuple[uuid.UUID | None, list[str] | None]:
    """The (cluster id, server names) an agent credential is bound to; ValidationFailed naming the field when
    the cluster or a server does not exist, or when a binding is asked for a token that is not an agent's."""
    if cluster is None:
        if servers is not None:
            raise ValidationFailed([FieldError("servers", "servers bind an agent token within a cluster: "
                                                          "give `cluster` too", "cluster_required")])
        return None, None
    if scopes != ["agent"]:
        raise ValidationFailed([FieldError("cluster", "only an agent token (scopes: [agent]) is bound to a cluster",
                                           "agent_only")])
    cluster_id = session.scalar(select(Cluster.id).where(Cluster.name == cluster))
    if cluster_id is None:
        raise ValidationFailed([FieldError("cluster", f"cluster {cluster!r} not found", "not_found")])
    if servers is None:
        return cluster_id, None
    known = set(session.scalars(select(Server.name).where(Server.cluster_id == cluster_id, Server.name.in_(servers))))
    if missing := [s for s in servers if s not in known]:
        raise ValidationFailed([FieldError("servers", f"no server {', '.join(map(repr, missing))} in cluster "
                                                      f"{cluster!r}", "not_found")])
    return cluster_id, sorted(set(servers))


def create_token(session: Session, name: str, scopes: list[str], actor: Actor, expires_in_days: int | None = None,
                 cluster: str | None = None, servers: list[str] | None = None) -> tuple[ApiToken, str]:
    """A new token; an agent token may be bound to a cluster (and to some of its servers): the nodes it may run."""
    scopes = check_scopes(scopes)
    cluster_id, servers = agent_binding(session, scopes, cluster, servers)
    secret = generate_token()
    expires = datetime.now(timezone.utc) + timedelta(days=expires_in_days) if expires_in_days else None
    row = ApiToken(id=uuid.uuid4(), name=name, prefix=secret[:10], token_hash=hash_token(secret),
                   scopes=scopes, created_by=actor.name, expires_at=expires, cluster_id=cluster_id, servers=servers)
    session.add(row)
    binding = dict(cluster=cluster, servers=servers) if cluster_id else {}
    audit.record(session, actor, "token.create", f"token/{row.id}", name=name, scopes=row.scopes, **binding)
    return row, secret


def authenticate(session: Session, secret: str) -> Actor | None:
    """The actor for a presented token, or None when it is unknown, revoked or expired."""
    row = session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(secret)))
    now = datetime.now(timezone.utc)
    if row is None or row.revoked_at is not None or (row.expires_at and row.expires_at <= now):
        return None
    if row.last_used_at is None or now - row.last_used_at > _LAST_USED_RESOLUTION:
        _touch(session, row.id)
    return Actor(token_id=row.id, name=row.name, scopes=frozenset(effective_scopes(row.scopes)))


def _touch(session: Session, token_id: uuid.UUID) -> None:
    """Refresh last_used_at without ever waiting: a token row that another request is refreshing (row-locked)
    is skipped, as it will show about the same time. FOR NO KEY UPDATE, as the UPDATE itself takes: rows
    referring to the token (audit_log) can still be written meanwhile. The caller commits at once
    (api/deps.py), so the lock taken here is never held while a route works."""
    stale = or_(ApiToken.last_used_at.is_(None), ApiToken.last_used_at < func.now() - _LAST_USED_RESOLUTION)
    free = (select(ApiToken.id).where(ApiToken.id == token_id, stale)
            .with_for_update(skip_locked=True, key_share=True))
    session.execute(update(ApiToken).where(ApiToken.id.in_(free.scalar_subquery())).values(last_used_at=func.now())
                    .execution_options(synchronize_session="fetch"))


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
        raise Unauthorized(INVALID_TOKEN)
    if not actor.can(scope):
        raise Forbidden(f"token '{actor.name}' lacks the '{scope}' scope for this operation", code="missing_scope")
    return actor


def still_valid(session: Session, token_ids: list[uuid.UUID]) -> set[uuid.UUID]:
    """Those of `token_ids` that are neither revoked nor expired (nor deleted)."""
    if not token_ids:
        return set()
    now = datetime.now(timezone.utc)
    return set(session.scalars(select(ApiToken.id).where(
        ApiToken.id.in_(token_ids), ApiToken.revoked_at.is_(None),
        (ApiToken.expires_at.is_(None)) | (ApiToken.expires_at > now))))


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
