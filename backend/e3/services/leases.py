"""Controllers' leases and the nodes each holds (docs/controller-scale-out.md §4; models.lease).

A controller's row lives while its lease is renewed (`renew_controller`, against Postgres's clock, so controllers'
clocks never matter). A node's lease moves to the controller its agent registers at: `acquire_node` keeps the
epoch when the same controller takes it again (a reconnect) and adds one when another does, so every command and
state write a controller makes can carry the epoch it holds, and the agent refuses one below the highest it saw.
"""

import uuid
from dataclasses import dataclass

from sqlalchemy import case, delete, func, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from e3.models import ComputeNode, controllers, node_leases


def start_controller(session: Session, name: str, address: str, lease_s: float) -> uuid.UUID:
    """A row for this controller process, its lease running `lease_s` from now."""
    controller_id = uuid.uuid4()
    session.execute(controllers.insert().values(
        id=controller_id, name=name, address=address,
        lease_expires_at=text("now() + make_interval(secs => :lease)").bindparams(lease=lease_s)))
    return controller_id


def renew_controller(session: Session, controller_id: uuid.UUID, lease_s: float) -> bool:
    """Extend the lease from now; False when it had already expired (or the row is gone): it is not renewed."""
    renewed = session.execute(update(controllers).where(
        controllers.c.id == controller_id, controllers.c.lease_expires_at > text("now()")).values(
        lease_expires_at=text("now() + make_interval(secs => :lease)").bindparams(lease=lease_s)))
    return renewed.rowcount == 1


def end_controller(session: Session, controller_id: uuid.UUID) -> None:
    """An orderly stop: the row goes, its nodes' leases name no controller."""
    session.execute(delete(controllers).where(controllers.c.id == controller_id))


@dataclass(frozen=True)
class LeaseHolder:
    controller_id: uuid.UUID | None  # None: the node's lease names no controller (or it has none)
    live: bool  # that controller's lease has not expired


def may_change_state(holder: LeaseHolder, me: uuid.UUID | None, leading: bool) -> bool:
    """Whether controller `me` may change the state of a node whose lease is `holder`: it holds the lease and the
    lease is live (a controller whose lease expired unnoticed, paused or cut off, writes nothing for its nodes
    until it has taken them back under a new lease), or it leads and no live controller holds the node."""
    return (holder.controller_id == me and holder.live) or (leading and not holder.live)


@dataclass(frozen=True)
class Acting:
    """A controller acting for a node it judged (a failover): who it is, and whether it leads."""
    me: uuid.UUID | None
    leading: bool


def still_may_act(session: Session, node_id: uuid.UUID, acting: Acting) -> bool:
    """In the caller's transaction, before it takes its cluster's row: whether `acting` may still act for the node
    (may_change_state), its liveness read on the database's clock at this moment (not at the transaction's start).
    The node's lease row stays locked FOR SHARE until the caller commits, so a Register elsewhere, which takes the
    node's lease, waits for it or went first and is seen. (Taken before the cluster's row: a registration takes the
    lease rows, then the cluster's.)"""
    row = session.execute(select(node_leases.c.controller_id,
                                 func.coalesce(controllers.c.lease_expires_at > func.clock_timestamp(), False))
                          .outerjoin(controllers, controllers.c.id == node_leases.c.controller_id)
                          .where(node_leases.c.node_id == node_id)
                          .with_for_update(read=True, of=node_leases)).first()
    holder = LeaseHolder(*row) if row is not None else LeaseHolder(None, False)
    return may_change_state(holder, acting.me, acting.leading)


def holders(session: Session, node_ids: list[uuid.UUID]) -> dict[uuid.UUID, LeaseHolder]:
    """Who holds each node's lease now (a node without a lease: held by none)."""
    rows = session.execute(select(node_leases.c.node_id, node_leases.c.controller_id,
                                  func.coalesce(controllers.c.lease_expires_at > func.now(), False))
                           .outerjoin(controllers, controllers.c.id == node_leases.c.controller_id)
                           .where(node_leases.c.node_id.in_(node_ids)))
    found = {node_id: LeaseHolder(controller_id, live) for node_id, controller_id, live in rows}
    return {node_id: found.get(node_id, LeaseHolder(None, False)) for node_id in node_ids}


def holder_address(session: Session, node_id: uuid.UUID) -> str | None:
    """Where the live controller holding the node's lease listens (its `host[,host...]:port`), None when none
    does."""
    return session.scalar(select(controllers.c.address)
                          .join(node_leases, node_leases.c.controller_id == controllers.c.id)
                          .where(node_leases.c.node_id == node_id, controllers.c.lease_expires_at > func.now()))


def take_over(session: Session, old_id: uuid.UUID, new_id: uuid.UUID) -> dict[uuid.UUID, int]:
    """After a lapse (controller_lease): the nodes whose lease still names `old_id` (nobody took them meanwhile)
    and that are not down become `new_id`'s, each at its epoch + 1, as any change of controller. Returns their
    epochs by node id; the others are no longer this controller's."""
    not_down = select(ComputeNode.id).where(ComputeNode.state != "down")
    rows = session.execute(update(node_leases).where(node_leases.c.controller_id == old_id,
                                                     node_leases.c.node_id.in_(not_down))
                           .values(controller_id=new_id, epoch=node_leases.c.epoch + 1, acquired_at=text("now()"))
                           .returning(node_leases.c.node_id, node_leases.c.epoch))
    return {node_id: epoch for node_id, epoch in rows}


def acquire_node(session: Session, node_id: uuid.UUID, controller_id: uuid.UUID, agent_id: str) -> int:
    """The node's lease is now `controller_id`'s, taken for `agent_id`; returns its epoch (1 for a node's first,
    one more each time it changes controller)."""
    return acquire_nodes(session, [(node_id, controller_id, agent_id)])[node_id]


def acquire_nodes(session: Session, takes: list[tuple[uuid.UUID, uuid.UUID, str]]) -> dict[uuid.UUID, int]:
    """`acquire_node` for many (node, controller, agent) in one statement, rows taken in node id order (as every
    writer of several nodes' rows takes them: no deadlock); node id -> its epoch."""
    if not takes:
        return {}
    stmt = insert(node_leases).values([dict(node_id=n, controller_id=c, epoch=1, agent_id=a)
                                       for n, c, a in sorted(takes, key=lambda t: t[0])])
    held, new = node_leases.c, stmt.excluded
    moved = case((held.controller_id.is_distinct_from(new.controller_id), 1), else_=0)
    return dict(session.execute(stmt.on_conflict_do_update(
        index_elements=[held.node_id],
        set_=dict(epoch=held.epoch + moved, controller_id=new.controller_id, agent_id=new.agent_id,
                  acquired_at=text("now()"))).returning(held.node_id, held.epoch)).all())
