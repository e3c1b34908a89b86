import { type CSSProperties, memo } from "react";
import { formatJoulesPerRequest } from "../lib/figures";
import { sourceLabel } from "../lib/powerSource";
import { HEAT_GRADIENT } from "../viz/heatRamp";
import type { BlockHeat, HeatBy } from "./useBlockHeat";
import { type InstanceLook, REFUSED_COLOR, UNRUN_ALPHA } from "../viz/instanceLook";

const MAX_APPS = 16;
const GREY = "#5d6878";

/** Each look's swatch and words (viz/instanceLook.ts draws them on the canvas). */
const LOOKS: { look: InstanceLook; label: string; title: string; swatch: CSSProperties; className?: string }[] = [
  { look: "running", label: "running", title: "its agent ACKed it", swatch: { background: GREY } },
  { look: "pending", label: "deploying / seeding", title: "waiting for its agent's answer, or a new backup receiving its state", swatch: { borderColor: GREY }, className: "dashed" },
  { look: "unrun", label: "placed, no agent", title: "no agent runs its node: nothing executes it", swatch: { background: GREY, opacity: UNRUN_ALPHA } },
  { look: "failed", label: "refused by its agent", title: "its agent NACKed it: hover it for the reason", swatch: { borderColor: REFUSED_COLOR, color: REFUSED_COLOR }, className: "refused" },
];

export interface ClusterLegendProps {
  apps: { application: string; color: string }[];
  /** Instances shown in each look (under the application filter), or null before the layout came. */
  looks?: Record<InstanceLook, number> | null;
  /** What colours a rack or pod drawn as one block, and the J/request range when that. */
  heatBy?: HeatBy;
  heatRange?: BlockHeat["range"];
}

/** The heat ramp's words: what it colours by, its ends, and where the figure comes from. */
function HeatLegend({ heatBy, range }: { heatBy: HeatBy; range: BlockHeat["range"] }) {
  const ramp = <span className="heat-scale" style={{ background: HEAT_GRADIENT }} aria-hidden="true" />;
  if (heatBy === "reserved") {
    return (
      <p className="legend-heat" data-testid="legend-heat">
        Zoomed out, a rack too small to show its nodes (further out, a pod) is one block coloured by the share of its
        cores reserved: {ramp} 0 → 100 %. Zoom in, or click it, to see its nodes and instances.
      </p>
    );
  }
  const source = range === null ? null : range.sources.length === 1 ? sourceLabel(range.sources[0]) : sourceLabel("mixed", range.sources);
  return (
    <p className="legend-heat" data-testid="legend-heat">
      Zoomed out, a rack (further out, a pod) is one block coloured by its joules per instance request: the power of its
      nodes reporting, divided by the requests their instances completed (an application&apos;s request passes several
      instances). {ramp}{" "}
      {range === null ? (
        <>no figure yet: no node reports requests.</>
      ) : (
        <>
          {formatJoulesPerRequest(range.min)} → {formatJoulesPerRequest(range.max)} (log scale); power: {source}.
        </>
      )}{" "}
      Grey: no figure (no node reporting, or no request).
    </p>
  );
}

/** Application colours, primary vs backup marks, instance states, host vs SmartNIC boxes, utilisation bars. */
export const ClusterLegend = memo(function ClusterLegend({ apps, looks, heatBy = "reserved", heatRange = null }: ClusterLegendProps) {
  const shown = apps.slice(0, MAX_APPS);
  return (
    <section className="panel" aria-label="Legend">
      <h3>Legend</h3>
      <ul className="legend">
        <li>
          <span className="swatch" style={{ background: "#5d6878" }} /> primary
        </li>
        <li>
          <span className="swatch hollow" style={{ borderColor: "#5d6878" }} /> backup
        </li>
        <li>
          <span className="swatch box" style={{ background: "#eef1f5", borderColor: "#7d8896" }} /> host
        </li>
        <li>
          <span className="swatch box" style={{ background: "#fff6e0", borderColor: "#c58b12" }} /> SmartNIC
        </li>
        <li>
          <span className="swatch box" style={{ background: "#2f9e6b", borderColor: "#2f9e6b", height: "0.3rem" }} /> cores used
        </li>
        <li>
          <span className="swatch box" style={{ background: "#d1495b", borderColor: "#d1495b", height: "0.3rem" }} /> &gt; 90 % used
        </li>
      </ul>
      <HeatLegend heatBy={heatBy} range={heatRange} />
      <h4>Instance state</h4>
      <ul className="legend one-column" data-testid="legend-states">
        {LOOKS.map((l) => (
          <li key={l.look} title={l.title} data-testid={`legend-state-${l.look}`}>
            <span className={`swatch ${l.className ?? ""}`} style={l.swatch}>
              {l.look === "failed" ? "✕" : null}
            </span>
            <span className="name">
              {l.label}
              {looks ? ` (${looks[l.look].toLocaleString("en-US")})` : ""}
            </span>
          </li>
        ))}
      </ul>
      <h4>Applications</h4>
      {apps.length === 0 ? (
        <p className="muted">Nothing deployed on this cluster.</p>
      ) : (
        <ul className="legend">
          {shown.map((a) => (
            <li key={a.application} title={a.application}>
              <span className="swatch" style={{ background: a.color }} />
              <span className="name">{a.application}</span>
            </li>
          ))}
          {apps.length > shown.length && <li className="muted">+{apps.length - shown.length} more (use the filter)</li>}
        </ul>
      )}
    </section>
  );
});
