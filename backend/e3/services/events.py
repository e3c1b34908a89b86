"""Events: state changes worth a timeline entry, and reading them back in order.

Each transaction that adds events also sends a Postgres NOTIFY on `e3_events` (sent once per transaction,
delivered when it commits, never for one rolled back): live readers LISTEN and read on from their cursor
(`list_events(since=...)`), so a burst of events costs them one read and an event is pushed only once
it is stored.

An event that concerns a deployment, an instance or a migration carries its application's name in
`data.application`, written when it is recorded (`application_of`): the instance or deployment may be
gone by the time the event is read. Events about a node alone (node.down, failover.started) have none; they
carry `data.applications` instead, the applications with instances on the node when it was recorded
(`applications_on_node`): a timeline filtered by application still shows the failover of a node after the
node's instances have moved away.
"""

import uuid
from collections.abc import Iterable

from sqlalchemy import String, func, or_, select, text
from sqlalchemy.orm import Session

from e3.core.errors import FieldError, ValidationFailed
from e3.models import Application, Cluster, Deployment, Event, Instance


NOTIFY_CHANNEL = "e3_events"


def emit(session: Session, kind: str, subject: str, cluster_id: uuid.UUID | None = None, **data) -> None:
    """Add an event to the session's transaction. An `application` or `applications` of None is left out of its
    data."""
    for key in ("application", "applications"):
        if data.get(key) is None:
            data.pop(key, None)
    session.add(Event(kind=kind, subject=subject, cluster_id=cluster_id, data=data))
    transaction = session.get_transaction()
    if session.info.get(NOTIFY_CHANNEL) is not transaction:  # one NOTIFY per transaction is enough
        session.execute(text(f"NOTIFY {NOTIFY_CHANNEL}"))
        session.info[NOTIFY_CHANNEL] = session.get_transaction()


def application_of(session: Session, *, instance_id: uuid.UUID | str | None = None,
                   deployment_id: uuid.UUID | None = None) -> str | None:
    """The name of the application an instance or a deployment belongs to (None when there is none), for
    an event's `application`."""
    if instance_id is not None:
        try:
            instance_id = uuid.UUID(str(instance_id))
        except ValueError:
            return None
        stmt = (select(Application.name).join(Deployment, Deployment.application_id == Application.id)
                .join(Instance, Instance.deployment_id == Deployment.id).where(Instance.id == instance_id))
    elif deployment_id is not None:
        stmt = (select(Application.name).join(Deployment, Deployment.application_id == Application.id)
                .where(Deployment.id == deployment_id))
    else:
        return None
    return session.scalar(stmt)


def applications_on_node(session: Session, node_id: uuid.UUID) -> list[str]:
    """The names of the applications with an instance on `node_id`, sorted (an event's `applications`)."""
    return applications_on_nodes(session, [node_id]).get(node_id, [])


def applications_on_nodes(session: Session, node_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[str]]:
    """`applications_on_node` for many nodes in one query; a node with no instance is left out."""
    stmt = (select(Instance.node_id, Application.name).join(Deployment, Deployment.application_id == Application.id)
            .join(Instance, Instance.deployment_id == Deployment.id).where(Instance.node_id.in_(node_ids))
            .distinct().order_by(Instance.node_id, Application.name))
    out: dict[uuid.UUID, list[str]] = {}
    for node_id, name in session.execute(stmt):
        out.setdefault(node_id, []).append(name)
    return out


def _about_deployment(deployment_id: uuid.UUID):
    """Its own events (subject deployment/<id>), and those about its instances as they are now: their own
    (subject instance/<id>) and the agents' answers to commands for them (data.instance_id). An instance the
    deployment no longer has (replaced after a failover) is not found this way."""
    instance_ids = select(func.cast(Instance.id, String)).where(Instance.deployment_id == deployment_id)
    instance_subjects = select(func.concat("instance/", func.cast(Instance.id, String))).where(
        Instance.deployment_id == deployment_id)
    return or_(Event.subject == f"deployment/{deployment_id}", Event.subject.in_(instance_subjects),
               Event.data["instance_id"].astext.in_(instance_ids))


def cluster_id_named(session: Session, cluster: str) -> uuid.UUID:
    """The id of the cluster called `cluster`; a 422 on the `cluster` field when there is none."""
    cluster_id = session.scalar(select(Cluster.id).where(Cluster.name == cluster))
    if cluster_id is None:
        raise ValidationFailed([FieldError("cluster", f"no cluster named {cluster!r}", "not_found")])
    return cluster_id


def ids_after(session: Session, since: int, also: Iterable[int] = (), limit: int = 500) -> list[int]:
    """The ids of the events stored with an id above `since`, or among `also`, ascending, at most `limit` (every
    kind, no filter: a follower tells a gap in the ids, a transaction not committed yet, from a filtered-out
    event)."""
    also = list(also)
    cond = Event.id > since if not also else (Event.id > since) | Event.id.in_(also)
    return list(session.scalars(select(Event.id).where(cond).order_by(Event.id).limit(limit)))


def list_events(session: Session, *, since: int = 0, limit: int = 100, last: int | None = None,
                kind: str | None = None, cluster: str | None = None, subject: str | None = None,
                application: str | None = None, deployment: uuid.UUID | None = None,
                ids: Iterable[int] | None = None) -> list[dict]:
    """Up to `limit` events with an id above `since` (or, with `ids`, those of them that match), oldest first;
    with `last`, the newest `last` of them instead (still oldest first). `kind` ending in "." is a prefix.
    `deployment`: only its own events and those about its instances (see `_about_deployment`)."""
    stmt = select(Event).where(Event.id > since) if ids is None else select(Event).where(Event.id.in_(list(ids)))
    if kind:
        stmt = stmt.where(Event.kind.startswith(kind, autoescape=True) if kind.endswith(".") else Event.kind == kind)
    if cluster:
        stmt = stmt.where(Event.cluster_id == cluster_id_named(session, cluster))
    if subject:
        stmt = stmt.where(Event.subject == subject)
    if application:  # its own events, and those about a node where it had instances
        stmt = stmt.where(or_(Event.data["application"].astext == application,
                              Event.data["applications"].contains([application])))
    if deployment is not None:
        stmt = stmt.where(_about_deployment(deployment))
    if last is None:
        rows = list(session.scalars(stmt.order_by(Event.id).limit(limit)))
    else:
        rows = list(session.scalars(stmt.order_by(Event.id.desc()).limit(last)))[::-1]
    return [dict(id=e.id, ts=e.ts, kind=e.kind, cluster_id=e.cluster_id, subject=e.subject,
                 application=e.data.get("application"), data=e.data) for e in rows]
