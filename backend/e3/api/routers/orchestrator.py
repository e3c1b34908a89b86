"""The data-plane orchestrator's mode: act on what it detects, only observe, or off."""

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from e3.api.deps import AdminDep, ReadDep, SessionDep
from e3.services import orchestrator_mode

router = APIRouter(prefix="/orchestrator", tags=["orchestrator"])
Mode = Literal["migrate", "observe", "off"]


class OrchestratorMode(BaseModel):
    mode: Mode = Field(description="migrate: migrate off SmartNICs in trouble; observe: record detections and "
                                   "decisions as events, move nothing; off: judge no heartbeat")


class OrchestratorModePublic(OrchestratorMode):
    source: Literal["set", "default"] = Field(description="set through this API, or the controller's "
                                                          "E3_ORCHESTRATOR")


@router.get("", response_model=OrchestratorModePublic)
def get_mode(actor: ReadDep) -> dict:
    """The orchestrator's mode in force."""
    return orchestrator_mode.get_mode()


@router.put("", response_model=OrchestratorModePublic)
def set_mode(body: OrchestratorMode, session: SessionDep, actor: AdminDep) -> dict:
    """Set the orchestrator's mode (scope admin: it decides whether E3 moves any instance on its own); the
    controller follows within about a second."""
    return orchestrator_mode.set_mode(session, actor, body.mode)
