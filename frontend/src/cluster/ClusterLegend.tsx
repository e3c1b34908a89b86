import { memo } from "react";

const MAX_APPS = 16;

export interface ClusterLegendProps {
  apps: { application: string; color: string }[];
}

/** Application colours, primary vs backup marks, host vs SmartNIC boxes, utilisation bars. */
export const ClusterLegend = memo(function ClusterLegend({ apps }: ClusterLegendProps) {
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
