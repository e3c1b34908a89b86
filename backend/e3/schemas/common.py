"""Shapes shared by every resource: pages and the error body."""

from pydantic import BaseModel, Field


class PageParams(BaseModel):
    limit: int = Field(50, ge=1, le=1000, description="Items per page (1-1000)")
    offset: int = Field(0, ge=0, description="Items to skip")


class PageMeta(BaseModel):
    total: int = Field(description="Items in the whole collection, across pages")
    limit: int
    offset: int


class FieldErrorBody(BaseModel):
    field: str = Field(description="Dotted path of the field at fault, e.g. spec.nodes[2].service")
    message: str
    code: str


class ErrorBody(BaseModel):
    """Every 4xx/5xx answer of the API has this shape."""

    code: str = Field(description="Machine-readable error code, e.g. validation_failed")
    message: str = Field(description="What went wrong, for a person")
    errors: list[FieldErrorBody] = Field(default_factory=list)
