"""What an experiment is and what it reports (the runner, e3.experiments.runner, writes it out).

An experiment is a module of this package with an `EXPERIMENT` object (`Experiment`): a name, a title,
what it needs (root, the emulated rack), and `run(ctx)`, which returns an `ExperimentResult`:

- `rows`: its raw data, one dict per row (written as CSV, columns in the first row's order);
- `quantities`: each figure the paper reports beside ours (`Quantity`): the paper's value, ours, the
  tolerance, the verdict, and where our figure comes from (`source`) and, for fitted models, its `role`;
- `plot(ax_figure)`: draws the figure (matplotlib, Agg): our series beside the paper's, axes with units.

Sources: `model` (the cost model or another formula), `emulation` (measured on the emulated rack),
`emulation+model-power` (measured throughput, modelled watts), `calibration input` (a figure taken from
the paper and fed back: it checks the plumbing, reproduces nothing). Roles: `fitted` (the figure a free
parameter was fitted on) or `held-out` (predicted from parameters fitted elsewhere); None when nothing
was fitted. Verdicts: `within` / `outside` the tolerance; `not judged` when there is a paper value but no
tolerance (a figure the experiment's set-up fixes, or one the paper gives too loosely to judge); `no paper
value`; `not measured`. Pure: no database, no web framework.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

Source = Literal["model", "emulation", "emulation+model-power", "calibration input"]
Role = Literal["fitted", "held-out"]
Verdict = Literal["within", "outside", "not judged", "no paper value", "not measured"]


@dataclass(frozen=True)
class Quantity:
    """One reported figure: ours beside the paper's."""

    name: str  # what it is, e.g. "KRPJ" or "energy-efficiency ratio"
    paper: float | None
    ours: float | None
    unit: str
    source: Source
    tolerance: float | None = None  # relative: |ours / paper - 1| <= tolerance is within
    role: Role | None = None
    labels: dict = field(default_factory=dict)  # which cell: e.g. {"cluster": "4xBeefy", "app": "nfv-fin"}

    @property
    def ratio(self) -> float | None:
        if self.paper in (None, 0) or self.ours is None:
            return None
        return self.ours / self.paper

    @property
    def verdict(self) -> Verdict:
        if self.ours is None:
            return "not measured"
        if self.paper is None:
            return "no paper value"
        if self.tolerance is None or self.ratio is None:
            return "not judged"
        return "within" if abs(self.ratio - 1.0) <= self.tolerance + 1e-12 else "outside"

    def as_dict(self) -> dict:
        return dict(self.labels, name=self.name, paper=self.paper, ours=self.ours, unit=self.unit,
                    ratio=self.ratio, tolerance=self.tolerance, verdict=self.verdict, source=self.source,
                    role=self.role)


@dataclass
class ExperimentResult:
    rows: list[dict]
    quantities: list[Quantity]
    plot: Callable | None = None  # plot(figure): draws on a matplotlib Figure
    notes: list[str] = field(default_factory=list)  # what a reader must know (assumptions, why a miss)
    incomplete: str | None = None  # why the run stopped early (its rows are partial)


@dataclass(frozen=True)
class RunContext:
    quick: bool = False  # the fast variant (make test): fewer points, model-only
    run_index: int = 0  # 0..runs-1 of a repeated run
    progress: Callable[[float, str], None] = lambda fraction, text: None  # 0..1 and what is being done


class Experiment(Protocol):
    name: str  # e.g. "table5"
    title: str  # e.g. "Table 5: energy efficiency (KRPJ) of 5 clusters x 3 applications"
    needs: frozenset[str]  # of {"root", "rack"}: what it cannot run without (skipped with the reason)
    deterministic: bool  # model-only: one run suffices, and its targets can be test assertions

    def run(self, ctx: RunContext) -> ExperimentResult: ...
