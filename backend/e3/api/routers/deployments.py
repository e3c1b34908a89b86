"""Deployments: 202 + a job that places it in the worker; read the placement."""

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Response, status

from e3.api.deps import DeployDep, PageDep, ReadDep, SessionDep
from e3.core.task_queue import PLACE_DEPLOYMENT, ROLL_DEPLOYMENT, enqueue_after_commit
from e3.schemas.deployment import (MAX_OFFERED_RPS, OFFERED_RPS_DESCRIPTION, DeploymentCreate, DeploymentPublic,
                                   DeploymentsPublic, JobAccepted, ModelAtLoadPublic, PlacementPublic, RolloutCreate)
from e3.services import deployment_model, deployments, rollouts

router = APIRouter(prefix="/deployments", tags=["deployments"])


@router.post("", status_code=status.HTTP_202_ACCEPTED, response_model=JobAccepted)
def create_deployment(body: DeploymentCreate, session: SessionDep, actor: DeployDep) -> dict:
    """Deploy an application version onto a cluster; poll the returned job for progress."""
    deployment, job = deployments.create_deployment(session, body, actor)

    def unqueued(reason: str) -> str:
        deployments.fail_unqueued(session, job, reason)
        return f"the job queue is unreachable; deployment {deployment.id} was marked failed"

    enqueue_after_commit(session, PLACE_DEPLOYMENT, job.id, on_unreachable=unqueued)
    return dict(job_id=job.id, deployment_id=deployment.id, status_url=f"/api/v1/jobs/{job.id}")


@router.post("/{deployment_id}/rollout", status_code=status.HTTP_202_ACCEPTED, response_model=JobAccepted)
def roll_deployment(deployment_id: uuid.UUID, body: RolloutCreate, session: SessionDep, actor: DeployDep) -> dict:
    """Roll a deployment to another application version: the new one is placed beside it and replaces it once
    its agents run it (else it is removed and this one runs on); poll the returned job."""
    new, job = rollouts.request_rollout(session, deployment_id, body.version, actor)

    def unqueued(reason: str) -> str:
        rollouts.fail_unqueued(session, job, reason)
        return f"the job queue is unreachable; the rollout of deployment {deployment_id} failed (it runs on)"

    enqueue_after_commit(session, ROLL_DEPLOYMENT, job.id, on_unreachable=unqueued)
    return dict(job_id=job.id, deployment_id=new.id, status_url=f"/api/v1/jobs/{job.id}")


@router.get("", response_model=DeploymentsPublic)
def list_deployments(session: SessionDep, actor: ReadDep, page: PageDep, cluster: str | None = None,
                     application: str | None = None) -> dict:
    """List deployments, newest first; filter by cluster or application name."""
    items, total = deployments.list_deployments(session, page, cluster, application)
    return dict(items=items, total=total, limit=page.limit, offset=page.offset)


@router.get("/{deployment_id}", response_model=DeploymentPublic)
def get_deployment(deployment_id: uuid.UUID, session: SessionDep, actor: ReadDep) -> dict:
    """Get a deployment's state."""
    return deployments.deployment_public(session, deployment_id)


@router.get("/{deployment_id}/placement", response_model=PlacementPublic)
def get_placement(deployment_id: uuid.UUID, session: SessionDep, actor: ReadDep, page: PageDep,
                  role: Annotated[str | None, Query(pattern="^(primary|backup)$")] = None,
                  state: Annotated[str | None, Query(pattern="^(placed|deploying|running|failed|seeding)$",
                                                    description="Only instances in this state, e.g. failed")] = None
                  ) -> dict:
    """List every instance with its computing node, server, rack, role and state."""
    items, total = deployments.placement(session, deployment_id, page, role, state)
    return dict(deployment_id=deployment_id, items=items, total=total, limit=page.limit, offset=page.offset)


@router.get("/{deployment_id}/model", response_model=ModelAtLoadPublic)
def get_model_at_load(deployment_id: uuid.UUID, session: SessionDep, actor: ReadDep,
                      offered_rps: Annotated[float | None, Query(gt=0, le=MAX_OFFERED_RPS, allow_inf_nan=False,
                                                                 description=OFFERED_RPS_DESCRIPTION)] = None) -> dict:
    """The cost model's throughput, latencies and joules per request of the current placement at an entry load, its
    power charged to the application as the measured figure is; with the knee as its capacity. Computes only."""
    return deployment_model.model_at_load(session, deployment_id, offered_rps)


@router.delete("/{deployment_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_deployment(deployment_id: uuid.UUID, session: SessionDep, actor: DeployDep) -> Response:
    """Delete a deployment and free its reservations."""
    deployments.delete_deployment(session, deployment_id, actor)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
