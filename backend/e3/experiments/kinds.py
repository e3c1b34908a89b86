"""The two kinds of experiment, each a function of a RunContext with what it needs (see base.Experiment).

- `ModelExperiment`: computed from the cost model alone: deterministic (one run suffices, its targets can
  be test assertions), needs neither root nor the rack.
- `RackExperiment`: measured on the emulated rack: needs root and the rack, repeated by the runner (its
  timings vary with the machine's load).
- `TimingExperiment`: wall-clock timings of real code on this machine, no rack: repeated by the runner.
"""

from collections.abc import Callable
from dataclasses import dataclass

from e3.experiments.base import ExperimentResult, RunContext


@dataclass(frozen=True)
class FunctionExperiment:
    """An experiment that is one function: `compute(ctx)` gives its result."""

    name: str
    title: str
    compute: Callable[[RunContext], ExperimentResult]
    needs: frozenset = frozenset()
    deterministic: bool = True

    def run(self, ctx: RunContext) -> ExperimentResult:
        return self.compute(ctx)


@dataclass(frozen=True)
class ModelExperiment(FunctionExperiment):
    """Computed from the cost model alone."""


@dataclass(frozen=True)
class RackExperiment(FunctionExperiment):
    """Measured on the emulated rack."""

    needs: frozenset = frozenset({"root", "rack"})
    deterministic: bool = False


@dataclass(frozen=True)
class TimingExperiment(FunctionExperiment):
    """Timed on this machine (wall clock)."""

    deterministic: bool = False
