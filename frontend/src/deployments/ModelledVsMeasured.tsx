import { useMemo } from "react";
import type { DeploymentRow } from "../api/client";
import { parsePrediction } from "../deploy/deployPreview";
import { MODELLED_TOOLTIP, ModelledTag } from "../deploy/Tags";
import { useSession } from "../hooks/useSession";
import { routeHref } from "../lib/route";
import { useLive } from "../live/useLive";
import { compareFigures, measuredGap } from "./figures";

/** Statuses in which some of its instances may run, so the agents may measure it. */
const EXECUTING = new Set(["deploying", "running", "degraded"]);

/** The cost model's prediction (modelled) beside what its agents measure now (the cluster's live channel). */
export function ModelledVsMeasured({ deployment: d }: { deployment: DeploymentRow }) {
  const session = useSession();
  const live = useLive(EXECUTING.has(d.status) ? d.cluster : null, session.token);
  const app = live.view.applications.find((a) => a.deployment_id === d.id) ?? null;
  const prediction = useMemo(() => parsePrediction(d.prediction), [d.prediction]);
  const measured = live.view.current ? app : null;
  const rows = compareFigures(prediction, measured);
  const gap = measuredGap(d.status, live.view.current, app);
  return (
    <section className="panel" aria-labelledby="deployment-figures-title" data-testid="deployment-figures">
      <h3 id="deployment-figures-title">Prediction vs measured</h3>
      <table className="list figures">
        <thead>
          <tr>
            <th scope="col">Figure</th>
            <th scope="col" title={MODELLED_TOOLTIP}>
              Predicted <ModelledTag />
            </th>
            <th scope="col" title="measured by its agents over the last second (the live channel)">
              Measured now
            </th>
            <th scope="col" />
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key} data-testid={`figure-${r.key}`}>
              <th scope="row">{r.label}</th>
              <td className="num" title={MODELLED_TOOLTIP}>
                {r.modelled}
              </td>
              <td className="num">{r.measured}</td>
              <td className="muted">{r.note}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint" data-testid="measured-note">
        {gap !== null && <>Measured: {gap}. </>}
        {prediction === null && "No prediction was stored for it. "}
        Live figures over time: the{" "}
        <a href={routeHref({ name: "dashboard", cluster: d.cluster })}>live dashboard of {d.cluster}</a>.
      </p>
    </section>
  );
}
