import type { FigureSpec } from "./chartFigures";
import { sourceTone } from "./format";
import { formatLoad } from "./modelAtLoad";
import { SourceBadge } from "./SourceBadge";

/** What the line is, by where its figures came from: "measured" only when every source measured them (RAPL, IPMI,
 * the heartbeats), "estimated by the model" when the model gave them all, both when mixed. */
export function lineKind(sources: readonly string[] | null): string {
  if (sources === null || sources.length === 0) return "measured";
  const tones = new Set(sources.map(sourceTone));
  if (tones.size === 1 && tones.has("measured")) return "measured";
  return tones.has("measured") ? "measured and estimated by the model" : "estimated by the model";
}

/** The chart's legend: what the line is and what each step of it is and, for an energy figure, the sources of its
 * watts (never a bare number); the cost model's value at the load measured now, dashed, said to be a current value. */
export function FigureChartLegend({
  spec,
  sources,
  sourcesError,
  model,
  modelLoad,
}: {
  spec: FigureSpec;
  /** The concrete sources over the range and now; null for a figure that has none (not an energy figure). */
  sources: readonly string[] | null;
  /** Why the energy history's sources could not be read (then only the live messages' are named). */
  sourcesError: string | null;
  model: number | null;
  modelLoad: number | null;
}) {
  return (
    <ul className="fig-legend" data-testid="chart-legend">
      <li data-testid="chart-legend-measured">
        <span className="fig-swatch fig-swatch-measured" aria-hidden="true" />
        {lineKind(sources)}: {spec.eachStep}
        {sources !== null && (
          <span className="fig-sources">
            {" · "}
            {sources.length === 0
              ? "source: not known yet"
              : [
                  `source${sources.length > 1 ? "s" : ""}: `,
                  ...sources.map((s) => <SourceBadge key={s} source={s} testId="chart-source" />),
                ]}
            {sourcesError ? <span className="muted"> (energy history unavailable: {sourcesError})</span> : null}
          </span>
        )}
      </li>
      {spec.model && (
        <li data-testid="chart-legend-model">
          <span className="fig-swatch fig-swatch-model" aria-hidden="true" />
          {model !== null && modelLoad !== null
            ? `model at ${formatLoad(modelLoad)} now: ${spec.format(model)}, the cost model's current prediction for ` +
              "this placement at the measured load (a value of now, not a history)"
            : "model at the measured load: none yet (nothing measured, or the model was refused)"}
        </li>
      )}
    </ul>
  );
}
