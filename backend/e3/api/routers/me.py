"""Who the caller is: the token's name and what it may do (the UI hides what it may not)."""

from fastapi import APIRouter

from e3.api.deps import ReadDep
from e3.core.security import SCOPES
from e3.schemas.auth import MePublic

router = APIRouter(tags=["tokens"])


@router.get("/me", response_model=MePublic)
def get_me(actor: ReadDep) -> dict:
    """The calling token's name and effective scopes."""
    return dict(token_id=actor.token_id, name=actor.name, scopes=[s for s in SCOPES if actor.can(s)])
