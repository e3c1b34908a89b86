"""The paper's 8 applications as templates, and the catalogue they draw on."""

import dataclasses

from fastapi import APIRouter, Response, status
from fastapi.responses import PlainTextResponse

from e3 import catalog
from e3.api.deps import ReadDep, SessionDep, WriteDep
from e3.core.errors import NotFound
from e3.schemas.application import ApplicationDetail
from e3.schemas.catalog import ServerTypePublic, ServiceTypePublic, TemplateInstantiate, TemplatesPublic
from e3.schemas.dag import validate_application
from e3.services import applications

router = APIRouter(tags=["catalog"])


def _template(name: str) -> dict:
    if name not in catalog.template_names():
        raise NotFound(f"no template '{name}'; templates: {', '.join(catalog.template_names())}")
    return catalog.template(name)


@router.get("/templates", response_model=TemplatesPublic)
def list_templates(actor: ReadDep) -> dict:
    """List the paper's applications (Table 3) as DAG templates."""
    apps = catalog.applications()
    items = [dict(name=n, description=_template(n)["metadata"].get("description", apps[n].description),
                  instances=apps[n].instances, services=list(apps[n].services)) for n in catalog.template_names()]
    return dict(items=items, total=len(items))


@router.get("/templates/{name}", response_class=PlainTextResponse, responses={200: {"content": {"application/yaml": {}}}})
def get_template(name: str, actor: ReadDep) -> PlainTextResponse:
    """Get a template's DAG spec as YAML."""
    _template(name)
    return PlainTextResponse(catalog.template_yaml(name), media_type="application/yaml")


@router.post("/templates/{name}/instantiate", status_code=status.HTTP_201_CREATED, response_model=ApplicationDetail)
def instantiate_template(name: str, body: TemplateInstantiate, response: Response, session: SessionDep,
                         actor: WriteDep) -> dict:
    """Create an application from a template, under the template's name or another."""
    document = _template(name)
    document["metadata"]["name"] = body.name or name
    app = applications.create_application(session, validate_application(document), actor)
    result = applications.application_public(session, app)
    response.headers["ETag"] = result["etag"]
    return result


@router.get("/catalog/services", response_model=list[ServiceTypePublic])
def list_service_types(actor: ReadDep) -> list[dict]:
    """The 16 microservice types (paper Table 2) with their Table 1 calibration."""
    return [dict(dataclasses.asdict(s), platforms=list(s.platforms), suits_smartnic=s.suits_smartnic,
                 smartnic_speedup=round(s.smartnic_speedup, 3)) for s in catalog.service_types().values()]


@router.get("/catalog/server-types", response_model=list[ServerTypePublic])
def list_server_types(actor: ReadDep) -> list[dict]:
    """The 5 server types of paper Table 4."""
    return [dataclasses.asdict(s) for s in catalog.server_types().values()]
