"""API tokens (admin scope): create (secret shown once), list, revoke."""

import uuid

from fastapi import APIRouter, status

from e3.api.deps import AdminDep, PageDep, SessionDep
from e3.api.verified_tokens import verified_tokens
from e3.schemas.auth import TokenCreate, TokenCreated, TokenPublic, TokensPublic
from e3.services import tokens

router = APIRouter(prefix="/tokens", tags=["tokens"])


@router.post("", status_code=status.HTTP_201_CREATED, response_model=TokenCreated)
def create_token(body: TokenCreate, session: SessionDep, actor: AdminDep) -> dict:
    """Create a token; its secret is in this answer only."""
    row, secret = tokens.create_token(session, body.name, body.scopes, actor, body.expires_in_days,
                                      cluster=body.cluster, servers=body.servers)
    session.flush()
    return dict(TokenPublic.model_validate(row, from_attributes=True).model_dump(), token=secret)


@router.get("", response_model=TokensPublic)
def list_tokens(session: SessionDep, actor: AdminDep, page: PageDep) -> dict:
    """List tokens (never their secrets)."""
    items, total = tokens.list_tokens(session, page)
    return dict(items=items, total=total, limit=page.limit, offset=page.offset)


@router.delete("/{token_id}", response_model=TokenPublic)
def revoke_token(token_id: uuid.UUID, session: SessionDep, actor: AdminDep):
    """Revoke a token at once."""
    row = tokens.revoke_token(session, token_id, actor)
    verified_tokens.forget(token_id)  # this process's next request with it is checked again (and refused)
    return row
