"""Placement previews: a dry run of several algorithms with predicted figures, side by side."""

from fastapi import APIRouter

from e3.api.deps import ReadDep, SessionDep
from e3.schemas.placement import PlacementPreview, PlacementPreviewRequest
from e3.services import placements

router = APIRouter(prefix="/placements", tags=["placements"])


@router.post("/preview", response_model=PlacementPreview)
def preview_placements(body: PlacementPreviewRequest, session: SessionDep, actor: ReadDep) -> dict:
    """Run placement algorithms as a dry run (nothing stored) and compare their predictions."""
    return placements.preview(session, body)
