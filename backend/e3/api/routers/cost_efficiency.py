"""The paper's cost efficiency (§5.5): a live cluster's at its current throughput and power, and a what-if's."""

import asyncio
from typing import Annotated

from fastapi import APIRouter, Query, Request

from e3.api.deps import ReadDep, authorize
from e3.core.config import get_settings
from e3.core.db import in_session
from e3.live.hub import hub
from e3.schemas.cost_efficiency import (MAX_USD_PER_KWH, MAX_YEARS, PRICE_DESCRIPTION, YEARS_DESCRIPTION,
                                        CostEfficiencyPublic, CostWhatIf)
from e3.services import cost_efficiency

router = APIRouter(tags=["energy"])


@router.get("/clusters/{name}/cost-efficiency", response_model=CostEfficiencyPublic)
async def get_cluster_cost_efficiency(
        request: Request, name: str,
        years: Annotated[int, Query(ge=1, le=MAX_YEARS, description=YEARS_DESCRIPTION)] = 5,
        price_per_kwh: Annotated[float | None, Query(gt=0, le=MAX_USD_PER_KWH, allow_inf_nan=False,
                                                     description=PRICE_DESCRIPTION)] = None) -> dict:
    """The cluster's cost efficiency at its current throughput and power (the live dashboard's figures), its
    CAPEX from paper Table 4."""
    # no database connection is held while the live figures settle (up to about a second)
    await asyncio.to_thread(authorize, request, "read")
    servers = await asyncio.to_thread(in_session, cost_efficiency.cluster_servers, name)
    totals = await hub(get_settings().redis_url).current_totals(name)
    return cost_efficiency.live_cost_efficiency(name, servers, totals, years, price_per_kwh)


@router.post("/cost-efficiency", response_model=CostEfficiencyPublic)
def preview_cost_efficiency(body: CostWhatIf, actor: ReadDep) -> dict:
    """What-if: the cost efficiency of given servers at a given throughput and power (or utilisation; default
    peak, as the paper). Computes only; nothing is stored."""
    return cost_efficiency.what_if_cost_efficiency(body)
