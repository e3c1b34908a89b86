import type { ReactNode } from "react";

import { routeHref } from "../lib/route";
import type { HeatBy } from "./useBlockHeat";

export interface ClusterToolbarProps {
  clusterName: string;
  applications: string[];
  application: string;
  onApplication: (application: string) => void;
  collapsed: boolean;
  onCollapsed: (collapsed: boolean) => void;
  drawn: number;
  filtered: number;
  total: number;
  servers: number;
  nodes: number;
  onFit: () => void;
  onReload: () => void;
  /** Instance colours: by application, or live by queue (with edges by traffic). */
  colorMode: "application" | "live";
  onColorMode: (mode: "application" | "live") => void;
  /** What colours a rack or pod drawn as one block (zoomed out); `heatDisabled`: why it cannot be chosen now. */
  heatBy: HeatBy;
  onHeatBy: (heatBy: HeatBy) => void;
  heatDisabled?: string | null;
  /** Shown before the Fit button (the search box). */
  children?: ReactNode;
}

export function ClusterToolbar(p: ClusterToolbarProps) {
  return (
    <div className="cluster-toolbar">
      <h2>
        Cluster <code>{p.clusterName}</code>
      </h2>
      <span className="muted">
        {p.servers.toLocaleString()} servers · {p.nodes.toLocaleString()} computing nodes
      </span>
      <a href={routeHref({ name: "dashboard", cluster: p.clusterName })} data-testid="cluster-dashboard-link">
        Live dashboard
      </a>
      <label>
        Application
        <select data-testid="app-filter" value={p.application} onChange={(e) => p.onApplication(e.target.value)}>
          <option value="">All ({p.applications.length})</option>
          {p.applications.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <label>
        Colour
        <select data-testid="color-mode" value={p.colorMode} onChange={(e) => p.onColorMode(e.target.value as "application" | "live")}>
          <option value="live">queue and traffic (live)</option>
          <option value="application">application</option>
        </select>
      </label>
      <label title={p.heatDisabled ?? "Zoomed out, each rack (further out, each pod) is one block of this colour"}>
        Blocks
        <select
          data-testid="heat-by"
          value={p.heatBy}
          disabled={Boolean(p.heatDisabled)}
          onChange={(e) => p.onHeatBy(e.target.value as HeatBy)}
        >
          <option value="reserved">cores reserved</option>
          <option value="energy">J/request (live)</option>
        </select>
      </label>
      <label>
        <input data-testid="collapse-racks" type="checkbox" checked={p.collapsed} onChange={(e) => p.onCollapsed(e.target.checked)} />
        Collapse racks
      </label>
      <span>
        <strong data-testid="instance-count">{p.drawn}</strong> instances drawn
        {p.drawn !== p.total && (
          <span
            className="muted"
            title={`${p.filtered} match the filter (${p.filtered - p.drawn} inside collapsed racks); ${p.total} placed on the cluster`}
          >
            {" "}
            of {p.total}
          </span>
        )}
      </span>
      <span className="spacer" />
      {p.children}
      <button type="button" onClick={p.onFit}>
        Fit
      </button>
      <button type="button" onClick={p.onReload}>
        Reload
      </button>
    </div>
  );
}
