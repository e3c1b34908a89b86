"""Applications: create and update from a DAG spec (JSON or YAML), read, versions, export, delete."""

from typing import Annotated

from fastapi import APIRouter, Header, Path, Query, Request, Response, status
from fastapi.responses import PlainTextResponse

from e3.api.deps import BodyDep, PageDep, ReadDep, SessionDep, WriteDep
from e3.api.openapi import document_body
from e3.core.errors import ValidationFailed
from e3.schemas.application import (ApplicationDetail, ApplicationVersionsPublic, ApplicationsPublic,
                                    ValidationReport)
from e3.schemas.common import INT4_MAX
from e3.schemas.dag import validate_application
from e3.services import applications
from e3.schemas.documents import parse_document

router = APIRouter(prefix="/applications", tags=["applications"])
DAG_BODY = document_body("DAG spec (apiVersion e3/v1, kind Application)")


def _spec(request: Request, raw_body: bytes):
    return validate_application(parse_document(raw_body, request.headers.get("content-type")))


@router.post("", status_code=status.HTTP_201_CREATED, response_model=ApplicationDetail, openapi_extra=DAG_BODY)
def create_application(request: Request, raw_body: BodyDep, response: Response, session: SessionDep,
                       actor: WriteDep) -> dict:
    """Create an application from a DAG spec (409 if the name exists)."""
    app = applications.create_application(session, _spec(request, raw_body), actor)
    body = applications.application_public(session, app)
    response.headers["ETag"] = body["etag"]
    return body


@router.post("/validate", response_model=ValidationReport, openapi_extra=DAG_BODY)
def validate_application_spec(request: Request, raw_body: BodyDep, actor: ReadDep) -> dict:
    """Check a DAG spec without storing it: the same messages a save would give."""
    try:
        spec = _spec(request, raw_body)
    except ValidationFailed as exc:
        return dict(valid=False, message=exc.message, errors=[e.as_dict() for e in exc.errors])
    return dict(valid=True, message="valid", errors=[], instances=spec.instance_count(), spec=spec.to_document())


@router.put("/{name}", response_model=ApplicationDetail, openapi_extra=DAG_BODY)
def put_application(name: str, request: Request, raw_body: BodyDep, response: Response, session: SessionDep,
                    actor: WriteDep, if_match: Annotated[str | None, Header()] = None) -> dict:
    """Create or update an application; an update is a new version (412 if If-Match is stale)."""
    app, created = applications.put_application(session, name, _spec(request, raw_body), actor, if_match)
    body = applications.application_public(session, app)
    response.headers["ETag"] = body["etag"]
    if created:
        response.status_code = status.HTTP_201_CREATED
    return body


@router.get("", response_model=ApplicationsPublic)
def list_applications(session: SessionDep, actor: ReadDep, page: PageDep) -> dict:
    """List applications with their latest version."""
    items, total = applications.list_applications(session, page)
    return dict(items=items, total=total, limit=page.limit, offset=page.offset)


@router.get("/{name}", response_model=ApplicationDetail)
def get_application(name: str, response: Response, session: SessionDep, actor: ReadDep) -> dict:
    """Get an application and its latest spec (the ETag header is for If-Match)."""
    body = applications.application_public(session, applications.get_application(session, name))
    response.headers["ETag"] = body["etag"]
    return body


@router.get("/{name}/versions", response_model=ApplicationVersionsPublic)
def list_application_versions(name: str, session: SessionDep, actor: ReadDep, page: PageDep) -> dict:
    """List an application's versions, newest first."""
    items, total = applications.list_versions(session, name, page)
    return dict(items=items, total=total, limit=page.limit, offset=page.offset)


@router.get("/{name}/export", response_class=PlainTextResponse,
            responses={200: {"content": {"application/yaml": {}}}})
def export_application(name: str, session: SessionDep, actor: ReadDep,
                       version: Annotated[int | None, Query(ge=1, le=INT4_MAX)] = None) -> PlainTextResponse:
    """Export an application version as a YAML DAG spec."""
    text = applications.export_yaml(session, name, version)
    return PlainTextResponse(text, media_type="application/yaml",
                             headers={"Content-Disposition": f'attachment; filename="{name}.yaml"'})


@router.delete("/{name}", status_code=status.HTTP_204_NO_CONTENT)
def delete_application(name: str, session: SessionDep, actor: WriteDep) -> Response:
    """Delete an application and its versions (409 while deployments use it)."""
    applications.delete_application(session, name, actor)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete("/{name}/versions/{version}", status_code=status.HTTP_204_NO_CONTENT)
def delete_version(name: str, version: Annotated[int, Path(ge=1, le=INT4_MAX)], session: SessionDep,
                   actor: WriteDep) -> Response:
    """Delete an older version (409 for the latest one, or while a deployment runs it)."""
    applications.delete_version(session, name, version, actor)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
