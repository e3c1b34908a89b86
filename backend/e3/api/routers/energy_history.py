"""Energy history: an application's, a cluster's or a node's energy, requests and power per step over a window."""

import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query

from e3.api.deps import ReadDep, SessionDep
from e3.schemas.energy_history import FROM_DESCRIPTION, STEP_DESCRIPTION, TO_DESCRIPTION, EnergyHistoryPublic
from e3.services import energy_history

router = APIRouter(tags=["energy"])

FromQuery = Annotated[datetime | None, Query(alias="from", description=FROM_DESCRIPTION)]
ToQuery = Annotated[datetime | None, Query(description=TO_DESCRIPTION)]
StepQuery = Annotated[int | None, Query(description=STEP_DESCRIPTION)]


@router.get("/applications/{name}/energy", response_model=EnergyHistoryPublic)
def get_application_energy(
        name: str, session: SessionDep, actor: ReadDep, from_: FromQuery = None, to: ToQuery = None,
        step: StepQuery = None,
        cluster: Annotated[str | None, Query(description="Only the instances in this cluster")] = None) -> dict:
    """The application's energy per step: the sum of its instances' shares (attribution), J/request."""
    return energy_history.application_energy(session, name, from_, to, step, cluster)


@router.get("/clusters/{name}/energy", response_model=EnergyHistoryPublic)
def get_cluster_energy(name: str, session: SessionDep, actor: ReadDep, from_: FromQuery = None, to: ToQuery = None,
                       step: StepQuery = None) -> dict:
    """The cluster's energy per step: the sum of its nodes' (idle included), J/request."""
    return energy_history.cluster_energy(session, name, from_, to, step)


@router.get("/nodes/{node_id}/energy", response_model=EnergyHistoryPublic)
def get_node_energy(node_id: uuid.UUID, session: SessionDep, actor: ReadDep, from_: FromQuery = None,
                    to: ToQuery = None, step: StepQuery = None) -> dict:
    """One node's energy per step, its power (mean and peak) and where the figures came from."""
    return energy_history.node_energy(session, node_id, from_, to, step)
