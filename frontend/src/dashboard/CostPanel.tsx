import type { ReactNode } from "react";

import type { Refusal } from "../lib/errors";
import type { CostControl, CostEfficiency } from "./costQuery";
import { formatPrice, formatRequestsPerUsd, formatRps, formatUsd, formatWatts } from "./format";
import { SourceBadge } from "./SourceBadge";
import type { CostControlsState } from "./useCostControls";
import type { CostEfficiencyState } from "./useCostEfficiency";

function capexText(answer: CostEfficiency | null): string {
  if (answer === null) return "CAPEX: asking the API…";
  const { usd, parts } = answer.capex;
  if (usd === null) {
    const missing = parts.filter((p) => p.unit_usd === null).map((p) => p.server_type);
    return `CAPEX unknown: no list price for ${missing.join(", ")}`;
  }
  return `CAPEX ${formatUsd(usd)} = ${parts.map((p) => `${p.count} × ${p.server_type} at ${formatUsd(p.unit_usd)}`).join(" + ")}`;
}

/** One control of the panel, with the API's refusal of it (or `hint`) on the line under it. */
function Control({
  control,
  label,
  unit,
  value,
  hint,
  refusal,
  testId,
  inputMode,
  onChange,
  children,
}: {
  control: CostControl;
  label: string;
  unit: string;
  value: string;
  hint: ReactNode;
  refusal: Refusal<CostControl> | null;
  testId: string;
  inputMode: "numeric" | "decimal";
  onChange: (text: string) => void;
  children?: ReactNode;
}) {
  const refused = refusal?.byField[control]?.join("; ") ?? null;
  const id = `dash-cost-${control}`;
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        data-testid={testId}
        inputMode={inputMode}
        value={value}
        aria-invalid={refused !== null}
        aria-describedby={`${id}-message`}
        onChange={(e) => onChange(e.target.value)}
      />
      <span>{unit}</span>
      <span>{children}</span>
      <p
        id={`${id}-message`}
        className={refused ? "error dash-price-message" : "muted dash-price-message"}
        role={refused ? "alert" : undefined}
        data-testid={`${testId}-message`}
        title={refused ?? undefined}
      >
        {refused ?? hint}
      </p>
    </>
  );
}

/** The paper's cost efficiency of the cluster at its current figures, as the API computes it
 * (GET /clusters/{name}/cost-efficiency): each input with its source, or the API's reason when there is none. */
export function CostPanel({ cost, controls }: { cost: CostEfficiencyState; controls: CostControlsState }) {
  const { answer, refusal } = cost;
  const refusedControl = refusal !== null && Object.keys(refusal.byField).length > 0;
  // a refresh that failed for another reason leaves the last answer up, struck as not current
  const old = answer !== null && refusal !== null;
  const points = answer?.points ?? [];
  const best = Math.max(0, ...points.map((p) => p.requests_per_usd));
  const power = answer?.power_watts;
  const modelled = power?.source === "model" || power?.source === "mixed";
  const price = answer?.price_per_kwh;
  const cls = old ? "dash-old" : "";

  return (
    <section className="panel dash-panel dash-cost" aria-labelledby="dash-cost-title" data-testid="dash-cost">
      <h2 id="dash-cost-title">
        Cost efficiency
        <span className="dash-legend">Throughput × T / (CAPEX + Power × T × Electricity), the paper's §5.5</span>
      </h2>
      <p className="dash-cost-capex" data-testid="cost-capex" title="list prices from the catalogue (paper Table 4); switches and cabling not included">
        {answer ? <SourceBadge source={answer.capex.source} testId="cost-capex-source" /> : null} {capexText(answer)}
      </p>
      <div className="dash-cost-inputs">
        <Control
          control="years"
          label="Ownership"
          unit="years"
          value={controls.controls.years}
          hint="the table gives 1 year up to this many"
          refusal={refusal}
          testId="cost-years"
          inputMode="numeric"
          onChange={(text) => controls.set("years", text)}
        />
        <Control
          control="price"
          label="Electricity"
          unit="$/kWh"
          value={controls.controls.price}
          hint={
            price ? (
              <>
                using {formatPrice(price.value)} <SourceBadge source={price.source} testId="cost-price-source" />
              </>
            ) : (
              "empty: the paper's price"
            )
          }
          refusal={refusal}
          testId="electricity-price"
          inputMode="decimal"
          onChange={(text) => controls.set("price", text)}
        >
          <button type="button" className="link" onClick={() => controls.set("price", "")}>
            paper's price
          </button>
        </Control>
      </div>
      <p className="dash-cost-basis muted">
        At the current throughput{" "}
        <span className={`dash-inline-fig dash-w-rps ${cls}`} data-testid="cost-throughput">
          {formatRps(answer?.throughput_rps.value)}
        </span>{" "}
        <span className="dash-inline-fig dash-w-badge">
          {answer?.throughput_rps.source ? <SourceBadge source={answer.throughput_rps.source} testId="cost-throughput-source" /> : null}
        </span>{" "}
        and power{" "}
        <span className={`dash-inline-fig dash-w-watts ${cls}`} data-testid="cost-watts">
          {formatWatts(power?.value)}
        </span>{" "}
        <span className="dash-inline-fig dash-w-badge">
          {power?.source ? <SourceBadge source={power.source} /> : null}
        </span>
        (the paper uses peak throughput and peak power).
        {modelled ? " The power is modelled, in part or whole: the result is an estimate." : ""}
      </p>
      <p className="dash-partial dash-cost-partial" data-testid="cost-partial">
        {old
          ? `not current: ${refusal?.message}`
          : answer && !answer.complete
            ? "partial: some nodes are not reporting; the live figures leave them out"
            : ""}
      </p>
      {answer?.unavailable ? (
        <p className="muted dash-cost-unavailable" role="status" data-testid="cost-unavailable">
          No cost efficiency: {answer.unavailable}
        </p>
      ) : refusal !== null && answer === null && !refusedControl ? (
        <p className="error dash-cost-unavailable" role="alert" data-testid="cost-error">
          Could not get the cost efficiency: {refusal.message}
        </p>
      ) : (
        <div className="dash-cost-rows">
          <table className="dash-cost-table">
            <thead>
              <tr>
                <th>Ownership</th>
                <th>Electricity</th>
                <th>Total cost</th>
                <th>Requests per $</th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={p.years} data-testid={`cost-year-${p.years}`}>
                  <td>
                    {p.years} year{p.years === 1 ? "" : "s"}
                  </td>
                  <td className={cls}>{formatUsd(p.energy_usd)}</td>
                  <td className={cls}>{formatUsd(p.total_usd)}</td>
                  <td className={cls} data-testid="cost-rpusd" data-old={old ? "true" : "false"}>
                    <span className="dash-bar" style={{ width: `${best > 0 ? (p.requests_per_usd / best) * 100 : 0}%` }} />
                    <span className="dash-bar-text">{formatRequestsPerUsd(p.requests_per_usd)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
