import type { ReactNode } from "react";
import type { ClusterGeometry, ClusterLayoutData, Hit } from "../viz/clusterLayout";
import { placementOf, roleOf } from "./relations";

export interface ClusterTooltipProps {
  data: ClusterLayoutData;
  geometry: ClusterGeometry;
  hit: Hit;
  at: { x: number; y: number };
}

function pct(used: number, total: number): string {
  return total > 0 ? `${Math.round((used / total) * 100)}%` : "–";
}

/** What is under the pointer, next to it. */
export function ClusterTooltip({ data, geometry, hit, at }: ClusterTooltipProps) {
  let body: ReactNode;
  if (hit.kind === "instance") {
    const i = hit.instance;
    const p = placementOf(data, i);
    const dep = data.deployments[data.instances.deployment[i] ?? -1];
    body = (
      <>
        <div className="t-title">
          {dep?.application ?? "?"} · {data.instances.dag_node[i]} ({data.instances.service[i]})
        </div>
        <div>
          shard {p.shard} · {roleOf(p.replica)}
        </div>
        <div>
          {p.node} ({p.nodeKind}) · rack {p.rack}
        </div>
        <div style={{ opacity: 0.7 }}>click to pin</div>
      </>
    );
  } else if (hit.kind === "node") {
    const n = data.nodes[hit.node];
    const box = geometry.nodes.find((b) => b.node === hit.node);
    body = n ? (
      <>
        <div className="t-title">
          {n.name} ({n.kind})
        </div>
        <div>
          cores {n.used_cores} / {n.cores} ({pct(n.used_cores, n.cores)})
        </div>
        {n.memory_mb !== undefined && (
          <div>
            memory {n.used_memory_mb ?? 0} / {n.memory_mb} MB ({pct(n.used_memory_mb ?? 0, n.memory_mb)})
          </div>
        )}
        <div>
          {box?.instances ?? 0} instances shown · {n.state}
        </div>
      </>
    ) : null;
  } else {
    const r = geometry.racks.find((b) => b.rack === hit.rack);
    const s = r?.summary;
    body = s ? (
      <>
        <div className="t-title">rack {r.name}</div>
        <div>
          {s.servers} servers · {s.hostNodes} host + {s.smartnicNodes} SmartNIC nodes
        </div>
        <div>
          {s.instances} instances ({s.primaries} primary) · cores {pct(s.usedCores, s.cores)} used
        </div>
        <div style={{ opacity: 0.7 }}>{r.collapsed ? "click to expand" : r.collapsible && hit.header ? "click the title to collapse" : ""}</div>
      </>
    ) : null;
  }
  if (!body) return null;
  return (
    <div className="cluster-tooltip" role="tooltip" style={{ left: at.x + 14, top: at.y + 14 }}>
      {body}
    </div>
  );
}
