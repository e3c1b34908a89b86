"""An experiment computed from the cost model alone: deterministic, needs neither root nor the rack."""

from collections.abc import Callable
from dataclasses import dataclass

from e3.experiments.base import ExperimentResult, RunContext


@dataclass(frozen=True)
class ModelExperiment:
    name: str
    title: str
    compute: Callable[[RunContext], ExperimentResult]
    needs: frozenset = frozenset()
    deterministic: bool = True

    def run(self, ctx: RunContext) -> ExperimentResult:
        return self.compute(ctx)
