import type { LiveTotals } from "../live/types";
import { type Capex, PAPER_USD_PER_KWH, costOverYears } from "./costEfficiency";
import { formatPrice, formatRequestsPerUsd, formatRps, formatUsd, formatWatts } from "./format";
import { type Freshness, partialNote, shownFigure } from "./freshness";
import { SourceBadge } from "./SourceBadge";
import type { ElectricityPrice } from "./useElectricityPrice";

const YEARS = 5;

/** The paper's cost efficiency for the current configuration over 1..5 years of ownership. */
export function CostPanel({
  totals,
  freshness,
  capex,
  capexError,
  price,
}: {
  totals: LiveTotals | null;
  freshness: Freshness;
  capex: Capex | null;
  capexError: string | null;
  price: ElectricityPrice;
}) {
  const f: Freshness = totals ? freshness : "none";
  const throughput = totals?.throughput_rps ?? null;
  const watts = totals?.power.watts ?? null;
  const points = costOverYears({ throughputRps: throughput, watts, capexUsd: capex?.usd ?? null, usdPerKwh: price.value }, YEARS);
  const best = Math.max(0, ...points.map((p) => p?.requestsPerUsd ?? 0));
  const partial = totals ? partialNote(totals.complete, totals.nodes_stale) : null;
  const modelled = totals?.power.source != null && totals.power.source !== "rapl" && totals.power.source !== "ipmi";

  let capexText: string;
  if (capexError) capexText = `CAPEX unavailable: ${capexError}`;
  else if (capex === null) capexText = "CAPEX: loading the cluster's servers…";
  else if (capex.usd === null) capexText = `CAPEX unknown: no list price for ${capex.missing.join(", ")}`;
  else
    capexText = `CAPEX ${formatUsd(capex.usd)} = ${capex.parts
      .map((p) => `${p.count} × ${p.serverType} at ${formatUsd(p.unitUsd)}`)
      .join(" + ")}`;

  return (
    <section className="panel dash-panel dash-cost" aria-labelledby="dash-cost-title" data-testid="dash-cost">
      <h2 id="dash-cost-title">
        Cost efficiency
        <span className="dash-legend">Throughput × T / (CAPEX + Power × T × Electricity), the paper's §5.5</span>
      </h2>
      <p className="dash-cost-capex" data-testid="cost-capex" title="list prices from the catalogue (paper Table 4); switches and cabling not included">
        {capexText}
      </p>
      <div className="dash-cost-inputs">
        <label htmlFor="dash-price">Electricity</label>
        <input
          id="dash-price"
          data-testid="electricity-price"
          inputMode="decimal"
          value={price.text}
          aria-invalid={price.error !== null}
          aria-describedby="dash-price-message"
          onChange={(e) => price.setText(e.target.value)}
        />
        <span>$/kWh</span>
        <button type="button" className="link" onClick={() => price.setText(String(PAPER_USD_PER_KWH))}>
          paper's {formatPrice(PAPER_USD_PER_KWH)}
        </button>
        <p id="dash-price-message" className={price.error ? "error dash-price-message" : "muted dash-price-message"} role={price.error ? "alert" : undefined} data-testid="electricity-message">
          {price.error ?? `using ${formatPrice(price.value)}`}
        </p>
      </div>
      <p className="dash-cost-basis muted">
        At the current throughput{" "}
        <span className={`dash-inline-fig dash-w-rps${f === "old" ? " dash-old" : ""}`}>{shownFigure(formatRps(throughput), f).text}</span>{" "}
        and power{" "}
        <span className={`dash-inline-fig dash-w-watts${f === "old" ? " dash-old" : ""}`}>{shownFigure(formatWatts(watts), f).text}</span>{" "}
        <span className="dash-inline-fig dash-w-badge">
          {totals?.power.source ? <SourceBadge source={totals.power.source} sources={totals.power.sources} /> : null}
        </span>
        (the paper uses peak throughput and peak power).
        {modelled ? " The power is modelled, in part or whole: the result is an estimate." : ""}
      </p>
      <p className="dash-partial dash-cost-partial" data-testid="cost-partial">
        {partial ?? ""}
      </p>
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
          {points.map((p, i) => {
            const years = i + 1;
            const cls = f === "old" ? "dash-old" : "";
            const show = (text: string) => (p === null || f === "none" ? "—" : text);
            return (
              <tr key={years} data-testid={`cost-year-${years}`}>
                <td>
                  {years} year{years === 1 ? "" : "s"}
                </td>
                <td className={cls}>{show(formatUsd(p?.energyUsd))}</td>
                <td className={cls}>{show(formatUsd(p?.totalUsd))}</td>
                <td className={cls} data-testid="cost-rpusd" data-old={f === "old" ? "true" : "false"}>
                  <span className="dash-bar" style={{ width: `${p && best > 0 && f !== "none" ? (p.requestsPerUsd / best) * 100 : 0}%` }} />
                  <span className="dash-bar-text">{show(formatRequestsPerUsd(p?.requestsPerUsd))}</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
