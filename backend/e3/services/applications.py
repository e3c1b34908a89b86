"""Applications: create, update as a new immutable version (guarded by ETag), read, export, delete."""

import dataclasses
import hashlib
import json
import uuid

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from e3.core.errors import Conflict, FieldError, NotFound, PreconditionFailed, ValidationFailed
from e3.core.security import Actor
from e3.models import Application, ApplicationVersion, Deployment
from e3.schemas.common import PageParams
from e3.schemas.dag import ApplicationSpec, DagNode
from e3.schemas.service_config import fill_required
from e3.services import audit
from e3.schemas.documents import dump_yaml
from e3.services.pagination import paginate


def spec_digest(document: dict) -> str:
    return hashlib.sha256(json.dumps(document, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def etag(app: Application) -> str:
    return f'"{app.id}-v{app.latest_version}"'


def get_application(session: Session, name: str, *, for_update: bool = False) -> Application:
    stmt = select(Application).where(Application.name == name)
    app = session.scalar(stmt.with_for_update() if for_update else stmt)
    if app is None:
        raise NotFound(f"application '{name}' not found")
    return app


def get_version(session: Session, app: Application, version: int | None = None) -> ApplicationVersion:
    number = version or app.latest_version
    row = session.scalar(select(ApplicationVersion).where(ApplicationVersion.application_id == app.id,
                                                          ApplicationVersion.version == number))
    if row is None:
        raise NotFound(f"application '{app.name}' has no version {number} (latest is {app.latest_version})")
    return row


def _add_version(session: Session, app: Application, number: int, spec: ApplicationSpec, actor: Actor) -> None:
    document = spec.to_document()
    session.add(ApplicationVersion(application_id=app.id, version=number, spec=document,
                                   digest=spec_digest(document), created_by=actor.name))


def with_required_config(spec: ApplicationSpec, previous: ApplicationSpec | None = None) -> ApplicationSpec:
    """`spec` with every node's required service configuration filled in (service_config.fill_required):
    what a node of the same id and service had in `previous` (the version before), else the catalogue
    schema's default, else a generated secret. So a stored spec shows what the agents receive."""
    before = {n.id: n for n in previous.nodes} if previous else {}

    def config_before(node: DagNode) -> dict[str, str] | None:
        old = before.get(node.id)
        return old.config if old and old.service == node.service else None

    return dataclasses.replace(spec, nodes=[dataclasses.replace(n, config=fill_required(n.service, n.config,
                                                                                        config_before(n)))
                                            for n in spec.nodes])


def create_application(session: Session, spec: ApplicationSpec, actor: Actor) -> Application:
    spec = with_required_config(spec)
    if session.scalar(select(Application.id).where(Application.name == spec.name)):
        raise Conflict(f"application '{spec.name}' already exists; update it with PUT /api/v1/applications/{spec.name}",
                       code="already_exists")
    app = Application(id=uuid.uuid4(), name=spec.name, latest_version=1)
    session.add(app)
    _add_version(session, app, 1, spec, actor)
    audit.record(session, actor, "application.create", f"application/{spec.name}", version=1)
    try:
        session.flush()
    except IntegrityError as exc:
        raise Conflict(f"application '{spec.name}' already exists", code="already_exists") from exc
    return app


def put_application(session: Session, name: str, spec: ApplicationSpec, actor: Actor,
                    if_match: str | None) -> tuple[Application, bool]:
    """Create or update `name` from a spec; returns (application, created).

    With If-Match, the update happens only if the caller saw the latest version (else 412).
    An unchanged spec adds no version.
    """
    if spec.name != name:
        raise ValidationFailed([FieldError("metadata.name", f"is '{spec.name}' but the URL names '{name}'",
                                           "name_mismatch")])
    app = session.scalar(select(Application).where(Application.name == name).with_for_update())
    if app is None:
        if if_match is not None:
            raise PreconditionFailed(f"application '{name}' does not exist, so If-Match {if_match} cannot match")
        return create_application(session, spec, actor), True
    if if_match is not None and if_match.strip() not in ("*", etag(app)):
        raise PreconditionFailed(
            f"application '{name}' changed since you read it: it is at version {app.latest_version} "
            f"(ETag {etag(app)}); reload it and apply your change again", code="etag_mismatch")
    latest = get_version(session, app)
    spec = with_required_config(spec, ApplicationSpec.from_document(latest.spec))
    if spec_digest(spec.to_document()) == latest.digest:
        return app, False
    app.latest_version += 1
    _add_version(session, app, app.latest_version, spec, actor)
    audit.record(session, actor, "application.update", f"application/{name}", version=app.latest_version)
    session.flush()
    return app, False


def application_public(session: Session, app: Application, version: ApplicationVersion | None = None) -> dict:
    version = version or get_version(session, app)
    spec = ApplicationSpec.from_document(version.spec)
    return dict(id=app.id, name=app.name, description=spec.description,
                latest_version=app.latest_version, instances=spec.instance_count(), etag=etag(app),
                created_at=app.created_at, updated_at=app.updated_at, spec=spec.to_document())


def canonical(document: dict) -> dict:
    """A stored spec in its documented key order (JSONB keeps keys sorted its own way)."""
    return ApplicationSpec.from_document(document).to_document()


def list_applications(session: Session, page: PageParams) -> tuple[list[dict], int]:
    apps, total = paginate(session, select(Application).order_by(Application.name), page)
    latest = {}
    if apps:
        stmt = select(ApplicationVersion).where(
            ApplicationVersion.application_id.in_([a.id for a in apps]),
            ApplicationVersion.version == select(Application.latest_version)
            .where(Application.id == ApplicationVersion.application_id).scalar_subquery())
        latest = {v.application_id: v for v in session.scalars(stmt)}
    return [application_public(session, a, latest.get(a.id)) for a in apps], total


def list_versions(session: Session, name: str, page: PageParams) -> tuple[list[ApplicationVersion], int]:
    app = get_application(session, name)
    stmt = select(ApplicationVersion).where(ApplicationVersion.application_id == app.id) \
        .order_by(ApplicationVersion.version.desc())
    return paginate(session, stmt, page)


def export_yaml(session: Session, name: str, version: int | None = None) -> str:
    app = get_application(session, name)
    return dump_yaml(canonical(get_version(session, app, version).spec))


def delete_application(session: Session, name: str, actor: Actor) -> None:
    app = get_application(session, name, for_update=True)
    in_use = session.scalar(select(func.count()).where(Deployment.application_id == app.id))
    if in_use:
        raise Conflict(f"application '{name}' has {in_use} deployment(s); delete them first", code="application_in_use")
    audit.record(session, actor, "application.delete", f"application/{name}")
    session.delete(app)


def delete_version(session: Session, name: str, number: int, actor: Actor) -> None:
    """Delete an older version of an application. Refused while a deployment runs it, and for the latest one
    (numbers are never reused: save a new version, or delete the whole application)."""
    app = get_application(session, name, for_update=True)
    version = get_version(session, app, number)
    if number == app.latest_version:
        raise Conflict(f"version {number} is the latest of application '{name}': save a new version first, or "
                       f"delete the application", code="latest_version")
    users = session.scalars(select(Deployment.id).where(Deployment.application_version_id == version.id)).all()
    if users:
        raise Conflict(f"version {number} of application '{name}' is deployed ({', '.join(map(str, users))}); "
                       f"delete or roll those deployments first", code="version_in_use")
    audit.record(session, actor, "application.delete_version", f"application/{name}", version=number)
    session.delete(version)
