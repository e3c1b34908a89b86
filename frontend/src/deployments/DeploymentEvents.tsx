import type { DeploymentRow } from "../api/client";
import { formatTime } from "../lib/format";
import { routeHref } from "../lib/route";
import { EVENTS_READ, useDeploymentEvents } from "./useDeploymentEvents";

/** Its events, newest first: placed, the agents' ACKs and refusals, failovers and migrations of its instances. */
export function DeploymentEvents({ deployment, refreshKey }: { deployment: DeploymentRow; refreshKey: string }) {
  const { entries, loading, error } = useDeploymentEvents(deployment, refreshKey);
  return (
    <section className="panel" aria-labelledby="deployment-events-title">
      <h3 id="deployment-events-title">Events</h3>
      <p className="hint">
        This deployment's newest {EVENTS_READ} events: its own and those about its instances. The cluster's whole
        timeline is under its <a href={routeHref({ name: "cluster", cluster: deployment.cluster })}>placement view</a>.
      </p>
      {error !== null && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {entries.length === 0 && error === null && <p className="muted">{loading ? "Loading…" : "No events."}</p>}
      {entries.length > 0 && (
        <ol className="deployment-events" data-testid="deployment-events">
          {entries.map((e) => (
            <li key={e.id} className={`tone-${e.tone}`} data-testid="deployment-event" data-kind={e.kind}>
              <time dateTime={e.ts}>{formatTime(e.ts)}</time> <span>{e.text}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
