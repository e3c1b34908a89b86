import {
  formatJoulesPerRequest,
  formatMs,
  formatRequestsPerJoule,
  formatRps,
  formatWatts,
} from "../lib/figures";
import type { PredictedFigures } from "./deployPreview";
import { MODELLED_TOOLTIP, ModelledTag } from "./Tags";

/** A deployment's predicted figures, labelled modelled. */
export function PredictionFigures({ prediction }: { prediction: PredictedFigures }) {
  const rows: [string, string][] = [
    ["Throughput", formatRps(prediction.throughputRps)],
    ["Avg latency", formatMs(prediction.avgLatencyMs)],
    ["p99 latency", formatMs(prediction.p99LatencyMs)],
    ["Power", formatWatts(prediction.powerWatts)],
    ["Energy", formatJoulesPerRequest(prediction.joulesPerRequest)],
    ["Efficiency", formatRequestsPerJoule(prediction.requestsPerJoule)],
  ];
  if (prediction.bottleneck !== null) rows.push(["Bottleneck", prediction.bottleneck]);
  return (
    <div className="prediction" data-testid="deploy-prediction" title={MODELLED_TOOLTIP}>
      <h3>
        Prediction <ModelledTag />{" "}
        <span className="hint">
          {prediction.offeredRps === null
            ? "at the placement's knee"
            : `at an offered load of ${formatRps(prediction.offeredRps)}${prediction.saturated ? " (saturated)" : ""}`}
        </span>
      </h3>
      <dl>
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
