"""Shapes shared by every resource: pages and the error body."""

from pydantic import BaseModel, Field

# The largest values Postgres' integer (int4) and bigint (int8) columns and parameters hold: a number past one
# is refused as a 422 naming its field, never sent to the database (where it was a 500).
INT4_MAX = 2**31 - 1
INT8_MAX = 2**63 - 1


class PageParams(BaseModel):
    limit: int = Field(50, ge=1, le=1000, description="Items per page (1-1000)")
    offset: int = Field(0, ge=0, le=INT8_MAX, description="Items to skip")


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
