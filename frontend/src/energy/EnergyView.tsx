import { useMemo } from "react";

import { EnergyChart } from "./EnergyChart";
import { EnergyLegend } from "./EnergyLegend";
import { formatJoules, formatJoulesPerRequest, formatRequests, formatWatts } from "./energyFormat";
import { RangePicker } from "./RangePicker";
import { shapeEnergy, sourceLegend } from "./series";
import { formatStep, type RangeChoice } from "./timeRange";
import type { EnergyHistoryState } from "./useEnergyHistory";

/** The API's refusal as lines naming their field ("from: must be before to"), or its message alone. */
function refusalLines(state: EnergyHistoryState): string[] {
  const refusal = state.refusal;
  if (refusal === null) return [];
  const byField = Object.entries(refusal.byField).map(([field, messages]) => `${field}: ${(messages ?? []).join("; ")}`);
  return [...byField, ...refusal.other];
}

/** A scope's energy over a time range (GET …/energy): the picker, the totals, watts and J/request by source,
 * and what went wrong in the person's words when the API refused the range. */
export function EnergyView({
  title,
  state,
  choice,
  onChoose,
}: {
  title: string;
  state: EnergyHistoryState;
  choice: RangeChoice;
  onChoose: (choice: RangeChoice) => void;
}) {
  const { answer, refusal, query } = state;
  const series = useMemo(() => (answer ? shapeEnergy(answer, Date.now()) : null), [answer]);
  // the API's message often is its one field error already: not said twice
  const lines = refusalLines(state).filter((l) => l !== refusal?.message);
  const fieldRefused = refusal !== null && Object.keys(refusal.byField).length > 0;
  return (
    <section
      className="panel energy-panel"
      aria-labelledby="energy-title"
      data-testid="energy-panel"
      data-from={query?.from ?? ""}
      data-to={query?.to ?? ""}
      data-step={query?.step ?? ""}
    >
      <h2 id="energy-title">
        {title}
        <span className="muted energy-sub"> · from the energy history (10 s rollups), each figure with its source</span>
      </h2>
      <RangePicker choice={choice} onChoose={onChoose} refusal={refusal} problem={state.problem} />
      {refusal !== null && (fieldRefused || answer === null) ? (
        <div className="error energy-refusal" role="alert" data-testid="energy-error">
          <p>{fieldRefused ? `The range was refused: ${refusal.message}` : `Could not get the energy history: ${refusal.message}`}</p>
          {lines.length > 0 && (
            <ul>
              {lines.map((l) => (
                <li key={l}>{l}</li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
      {series === null ? (
        state.loading && refusal === null && state.problem === null ? (
          <p className="muted" data-testid="energy-loading">
            Asking for the energy history…
          </p>
        ) : null
      ) : (
        <>
          <p className="energy-totals" data-testid="energy-totals">
            <span>
              Energy <strong data-testid="energy-total-joules">{formatJoules(answer?.totals.joules)}</strong>
            </span>
            <span>
              requests <strong data-testid="energy-total-requests">{formatRequests(answer?.totals.requests)}</strong>
            </span>
            <span>
              <strong data-testid="energy-total-jpr">{formatJoulesPerRequest(answer?.totals.joules_per_request)}</strong>
            </span>
            <span className="muted" data-testid="energy-total-sources">
              {(answer?.totals.sources ?? []).length > 0 ? `source: ${(answer?.totals.sources ?? []).map(sourceLegend).join(", ")}` : ""}
            </span>
            <span className="muted" data-testid="energy-step">
              step {formatStep(series.stepS)} · {series.steps.length} with data
              {series.open > 0 ? " · the last still open" : ""}
              {refusal !== null ? ` · not current: ${refusal.message}` : ""}
            </span>
          </p>
          {series.steps.length === 0 ? (
            <p className="muted energy-empty" role="status" data-testid="energy-empty">
              No energy recorded in this range{series.gaps.length > 0 ? " (the steps have no data)" : ""}.
            </p>
          ) : (
            <>
              <h3 className="energy-chart-title">Power (W): mean stacked by source, max as the line</h3>
              <EnergyChart series={series} figure="watts" label={`${title}: watts by source`} format={(v) => formatWatts(v)} />
              <h3 className="energy-chart-title">Energy per request (J/req)</h3>
              <EnergyChart
                series={series}
                figure="joules_per_request"
                label={`${title}: joules per request`}
                format={(v) => formatJoulesPerRequest(v)}
              />
              <EnergyLegend series={series} />
            </>
          )}
        </>
      )}
    </section>
  );
}
