import type { CountsState } from "../hooks/useCounts";
import { COUNTED_RESOURCES, RESOURCE_LABELS, formatCount } from "../lib/counts";

/** Totals of each resource; each links to its list. */
export function CountsPanel({ counts, signedIn }: { counts: CountsState; signedIn: boolean }) {
  return (
    <section className="panel" aria-labelledby="counts-title">
      <h2 id="counts-title">Resources</h2>
      {signedIn ? (
        <dl className="counts" aria-busy={counts.loading}>
          {COUNTED_RESOURCES.map((resource) => (
            <div key={resource}>
              <dt>
                <a href={`#/${resource}`}>{RESOURCE_LABELS[resource]}</a>
              </dt>
              <dd>{formatCount(counts.counts[resource])}</dd>
            </div>
          ))}
        </dl>
      ) : (
        <p className="muted">Sign in to see clusters, applications, deployments and jobs.</p>
      )}
      {counts.error !== null && <p className="error">{counts.error}</p>}
    </section>
  );
}
