import { memo } from "react";
import { QUEUE_LEGEND, QUEUE_STANDING, STALE_COLOR, trafficStyle } from "../viz/liveOverlay";

export interface LiveLegendProps {
  /** Nodes reporting current figures, of all. */
  reporting: number;
  nodes: number;
  maxRps: number;
  /** Edges whose traffic is known (current figures at both ends). */
  edges: number;
}

/** What the live colours mean: the queue scale, the traffic widths, grey for figures not current. */
export const LiveLegend = memo(function LiveLegend({ reporting, nodes, maxRps, edges }: LiveLegendProps) {
  const gradient = `linear-gradient(to right, ${QUEUE_LEGEND.map((s, i) => `${s.color} ${(i / (QUEUE_LEGEND.length - 1)) * 100}%`).join(", ")})`;
  const top = trafficStyle(maxRps, maxRps);
  const low = trafficStyle(maxRps * 0.1, maxRps);
  return (
    <section className="panel" aria-label="Live colours" data-testid="live-legend">
      <h3>Live colours</h3>
      <p className="muted live-legend-note">
        {reporting} of {nodes} nodes reporting current figures.
      </p>
      <h4>Instances: their node's ingress queue</h4>
      <div className="queue-scale" style={{ background: gradient }} />
      <div className="queue-scale-labels">
        <span>0</span>
        <span>{QUEUE_STANDING} packets (standing)</span>
        <span>≥ {QUEUE_STANDING * 2}</span>
      </div>
      <h4>Edges: traffic between primaries (estimated)</h4>
      {edges === 0 ? (
        <p className="muted live-legend-note">No DAG edge with current figures.</p>
      ) : (
        <ul className="legend">
          <li>
            <span className="swatch box" style={{ background: low.color, borderColor: low.color, height: `${low.width}px` }} /> {fmtRps(maxRps * 0.1)}
          </li>
          <li>
            <span className="swatch box" style={{ background: top.color, borderColor: top.color, height: `${top.width}px` }} /> {fmtRps(maxRps)}
          </li>
        </ul>
      )}
      <p className="muted live-legend-note">
        An edge's rate is its downstream instance's requests/s, split over the primaries feeding it: heartbeats carry no
        per-edge counts.
      </p>
      <ul className="legend">
        <li>
          <span className="swatch" style={{ background: STALE_COLOR }} /> not current (stale, down, no heartbeat)
        </li>
      </ul>
    </section>
  );
});

function fmtRps(v: number): string {
  return `${v >= 100 ? Math.round(v).toLocaleString() : v.toFixed(1)} req/s`;
}
