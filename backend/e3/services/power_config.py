"""A cluster's power sources: stored (clusters.power), read back, and the BMCs the controller polls.

The document's shape and rules are schemas.power_config's; this checks what needs the database or the
disk: that each server named exists in the cluster and that each credentials file is there and private.
"""

import uuid
from dataclasses import dataclass

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from e3.core.errors import FieldError
from e3.energy import ipmi
from e3.energy.server_split import SmartNicLoad
from e3.models import Cluster, ComputeNode, Instance, Server
from e3.schemas.dag import pydantic_field_errors, raise_validation
from e3.schemas.power_config import PowerConfig
from e3.services.clusters import get_cluster


def _checked(session: Session, cluster: Cluster, document: object) -> PowerConfig:
    errors: list[FieldError] = []
    try:
        config = PowerConfig.model_validate(document)
    except ValidationError as e:
        raise_validation(pydantic_field_errors(e))
        raise  # not reached
    servers = set(session.scalars(select(Server.name).where(Server.cluster_id == cluster.id,
                                                            Server.name.in_(list(config.bmcs)))))
    for name, bmc in config.bmcs.items():
        where = f"bmcs.{name}"
        if name not in servers:
            errors.append(FieldError(where, f"cluster '{cluster.name}' has no server {name!r}", "unknown_server"))
            continue
        if bmc.interface == "lanplus":
            for needed in ("address", "credentials_file"):
                if getattr(bmc, needed) is None:
                    errors.append(FieldError(f"{where}.{needed}", "required for interface lanplus", "missing"))
            if bmc.credentials_file is not None:
                try:
                    ipmi.check_credentials_file(bmc.credentials_file)
                except ipmi.IpmiError as e:
                    errors.append(FieldError(f"{where}.credentials_file", e.reason, "bad_credentials_file"))
    raise_validation(errors)
    return config


def public(config: PowerConfig) -> dict:
    return dict(config.model_dump(), polled="ipmi" in config.precedence)


def set_power(session: Session, cluster_name: str, document: object) -> dict:
    """Store the cluster's power sources (ValidationFailed naming each bad field); the controller picks them up
    within its refresh period."""
    cluster = get_cluster(session, cluster_name)
    config = _checked(session, cluster, document)
    cluster.power = config.model_dump()
    return public(config)


def get_power(session: Session, cluster_name: str) -> dict:
    cluster = get_cluster(session, cluster_name)
    return public(PowerConfig.model_validate(cluster.power or {}))


@dataclass(frozen=True)
class BmcTarget:
    """A server whose BMC the controller polls, and the nodes its reading is split into."""

    cluster_id: uuid.UUID
    server: str
    bmc: dict  # BmcModel's fields
    host_node_id: uuid.UUID
    smartnics: tuple[SmartNicLoad, ...]  # node_id as text, and the services placed on it


def polled_servers(session: Session) -> list[BmcTarget]:
    """Every server with a BMC in a cluster whose precedence has ipmi (first), with its nodes now."""
    out = []
    for cluster in session.scalars(select(Cluster).where(Cluster.power.is_not(None))):
        config = PowerConfig.model_validate(cluster.power)
        if "ipmi" not in config.precedence or not config.bmcs:
            continue
        rows = session.execute(select(Server.name, ComputeNode.id, ComputeNode.kind)
                               .join(ComputeNode, ComputeNode.server_id == Server.id)
                               .where(Server.cluster_id == cluster.id, Server.name.in_(list(config.bmcs)))
                               .order_by(Server.name, ComputeNode.index)).all()
        nic_ids = [node_id for _, node_id, kind in rows if kind == "smartnic"]
        services: dict[uuid.UUID, set[str]] = {}
        if nic_ids:
            for node_id, service in session.execute(select(Instance.node_id, Instance.service)
                                                    .where(Instance.node_id.in_(nic_ids))):
                services.setdefault(node_id, set()).add(service)
        by_server: dict[str, list] = {}
        for name, node_id, kind in rows:
            by_server.setdefault(name, []).append((node_id, kind))
        for name, nodes in by_server.items():
            host = next((node_id for node_id, kind in nodes if kind == "host"), None)
            if host is None:
                continue
            nics = tuple(SmartNicLoad(str(node_id), frozenset(services.get(node_id, ())))
                         for node_id, kind in nodes if kind == "smartnic")
            out.append(BmcTarget(cluster.id, name, config.bmcs[name].model_dump(), host, nics))
    return out
