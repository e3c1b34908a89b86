"""The capacity planner: candidate clusters for applications at a load, ranked by predicted cost efficiency."""

from fastapi import APIRouter

from e3.api.deps import ReadDep, SessionDep
from e3.schemas.capacity_plan import PlanCreate, PlanPublic
from e3.services import capacity_plans

router = APIRouter(prefix="/plans", tags=["energy"])


@router.post("", response_model=PlanPublic)
def create_plan(body: PlanCreate, session: SessionDep, actor: ReadDep) -> dict:
    """Rank candidate clusters (Table 4 and custom server types, 1..max_servers each) for the applications at
    the load by predicted cost efficiency over 1..years years, with each one's placement and latency. Every
    figure is the model's; computes only, nothing is stored (answers within about 2 s: see docs/energy.md)."""
    return capacity_plans.create_plan(session, body)
