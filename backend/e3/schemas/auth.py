"""Token and audit families."""

import uuid
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from e3.core.security import SCOPES
from e3.schemas.common import PageMeta


class TokenCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$", description="1-63 characters: letters, digits, _ . -")
    # until then the text stays as committed so the frontend's generated client is current.
    scopes: list[str] = Field(min_length=1, description="Any of: " + ", ".join(SCOPES))
    expires_in_days: int | None = Field(None, ge=1, le=3650)
    cluster: str | None = Field(None, max_length=63, description="An agent token only: the cluster whose nodes it "
                                                                 "may run (none: any node no other credential holds)")
    servers: list[str] | None = Field(None, min_length=1, max_length=1000,
                                      description="With `cluster`: only the nodes of these servers")


class TokenPublic(BaseModel):
    id: uuid.UUID
    name: str
    prefix: str
    scopes: list[str]
    created_at: datetime
    created_by: str | None
    last_used_at: datetime | None
    expires_at: datetime | None
    revoked_at: datetime | None
    cluster_id: uuid.UUID | None = Field(None, description="An agent token's cluster (none: not bound)")
    servers: list[str] | None = Field(None, description="An agent token's servers (none: all of its cluster's)")


class TokenCreated(TokenPublic):
    token: str = Field(description="The secret. Shown once; only its hash is stored.")


class TokensPublic(PageMeta):
    items: list[TokenPublic]


class AuditEntryPublic(BaseModel):
    id: int
    ts: datetime
    token_id: uuid.UUID | None
    token_name: str
    action: str
    target: str
    detail: dict


class AuditPublic(PageMeta):
    items: list[AuditEntryPublic]


class MePublic(BaseModel):
    token_id: uuid.UUID | None
    name: str
    scopes: list[str] = Field(description="Effective scopes: what this token may do, implied scopes included")
