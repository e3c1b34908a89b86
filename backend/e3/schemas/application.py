"""Application family: DAG applications and their immutable versions."""

import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from e3.schemas.common import PageMeta


class ApplicationPublic(BaseModel):
    id: uuid.UUID
    name: str
    description: str | None
    latest_version: int
    instances: int = Field(description="Instances of the latest version: shards x (1 + replicas), summed")
    etag: str = Field(description="Pass as If-Match when updating")
    created_at: datetime
    updated_at: datetime


class ApplicationDetail(ApplicationPublic):
    spec: dict = Field(description="The latest version's DAG spec document")


class ApplicationsPublic(PageMeta):
    items: list[ApplicationPublic]


class ApplicationVersionPublic(BaseModel):
    version: int
    digest: str = Field(description="sha256 of the canonical spec")
    created_at: datetime
    created_by: str | None
    spec: dict


class ApplicationVersionsPublic(PageMeta):
    items: list[ApplicationVersionPublic]


class ValidationReport(BaseModel):
    """A dry-run check of a DAG spec. Malformed bodies still answer 4xx; a readable spec answers 200."""

    valid: bool
    message: str
    errors: list[dict] = Field(default_factory=list, description="As in the error body: field, message, code")
    instances: int | None = None
    spec: dict | None = Field(None, description="The canonical spec, defaults filled in, when valid")
