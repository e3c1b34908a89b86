import type { ReactNode } from "react";
import { describeInstanceState } from "../lib/deploymentStatus";
import { formatJoulesPerRequest } from "../lib/figures";
import { countOf } from "../lib/format";
import { sourceLabel } from "../lib/powerSource";
import type { ClusterGeometry, ClusterLayoutData, Hit, RackSummary } from "../viz/clusterLayout";
import type { BlockEnergy } from "./blockEnergy";
import { instanceLook } from "../viz/instanceLook";
import { placementOf, roleOf } from "./relations";

/** A node's live figures as the tooltip shows them (live/liveState.ts NodeNow fits). */
export interface TooltipLiveNode {
  stale: boolean;
  ageNowMs: number | null;
  queue_len: number | null;
  cpu_util: number | null;
  instances: { id: string; requests_per_s: number | null; exec_us: number; exec_ema_us: number }[];
}

export interface ClusterTooltipProps {
  data: ClusterLayoutData & { instances: { id: string[] } };
  geometry: ClusterGeometry;
  hit: Hit;
  at: { x: number; y: number };
  /** The live figures of a node (by layout index), when the view is live. */
  liveNode?: ((node: number) => TooltipLiveNode | null) | null;
  /** A line on instances about dragging them (how, or why not). */
  dragNote?: string | null;
  /** Racks' and pods' live J/request, when the blocks are coloured by it. */
  blockFigures?: { racks: BlockEnergy[]; pods: BlockEnergy[] } | null;
}

/** A rack's or pod's J/request line, with its source and how many of its nodes it is over. */
function BlockEnergyLine({ figure }: { figure: BlockEnergy | undefined }) {
  if (!figure) return null;
  if (figure.joulesPerRequest === null) {
    return <div className="t-stale">no J/request: {figure.reporting === 0 ? "no node reporting" : "no request completed"}</div>;
  }
  const source = figure.sources.length === 1 ? sourceLabel(figure.sources[0]) : sourceLabel("mixed", figure.sources);
  return (
    <div>
      {formatJoulesPerRequest(figure.joulesPerRequest)} per instance request · {figure.watts.toFixed(0)} W ({source}) ·{" "}
      {figure.reporting} of {figure.nodes} nodes reporting
    </div>
  );
}

function age(ms: number | null): string {
  return ms === null ? "never reported" : ms < 1000 ? `${Math.round(ms)} ms old` : `${(ms / 1000).toFixed(1)} s old`;
}

/** The live lines for an instance (its figures) or a node (queue, CPU), or a note that they are not current. */
function LiveLines({ live, instanceId }: { live: TooltipLiveNode; instanceId?: string }) {
  if (live.stale) return <div className="t-stale">live figures not current ({age(live.ageNowMs)})</div>;
  const f = instanceId ? live.instances.find((i) => i.id === instanceId) : undefined;
  return (
    <>
      <div>
        node queue {live.queue_len ?? "—"} packets · CPU {live.cpu_util == null ? "—" : `${Math.round(live.cpu_util * 100)}%`}
      </div>
      {f && (
        <div>
          {f.requests_per_s == null ? "—" : f.requests_per_s.toFixed(0)} req/s · exec {f.exec_us.toFixed(0)} µs (avg {f.exec_ema_us.toFixed(0)})
        </div>
      )}
    </>
  );
}

/** A rack's or pod's lines: what it holds, what is placed on it, its J/request when shown, what a click does. */
function BlockLines(p: { title: string; summary: RackSummary; contains: string; figure: BlockEnergy | undefined; hint: string }) {
  const s = p.summary;
  return (
    <>
      <div className="t-title">{p.title}</div>
      <div>
        {p.contains}
        {countOf(s.servers, "server")} · {s.hostNodes} host + {s.smartnicNodes} SmartNIC nodes
      </div>
      <div>
        {s.instances} instances ({s.primaries} primary) · cores {pct(s.usedCores, s.cores)} used
      </div>
      {s.failed > 0 && <div className="t-failed">{s.failed} refused by their agents</div>}
      <BlockEnergyLine figure={p.figure} />
      <div style={{ opacity: 0.7 }}>{p.hint}</div>
    </>
  );
}

function pct(used: number, total: number): string {
  return total > 0 ? `${Math.round((used / total) * 100)}%` : "–";
}

/** What is under the pointer, next to it. */
export function ClusterTooltip({ data, geometry, hit, at, liveNode, dragNote, blockFigures }: ClusterTooltipProps) {
  let body: ReactNode;
  if (hit.kind === "instance") {
    const i = hit.instance;
    const p = placementOf(data, i);
    const dep = data.deployments[data.instances.deployment[i] ?? -1];
    const state = data.instances.state?.[i];
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
        {state !== undefined && (
          <div className={`t-state t-${instanceLook(state)}`} data-testid="tooltip-state">
            {describeInstanceState(state, data.instances.error?.[i])}
          </div>
        )}
        {liveNode && (() => {
          const l = liveNode(data.instances.node[i] ?? -1);
          return l ? <LiveLines live={l} instanceId={data.instances.id[i]} /> : null;
        })()}
        <div style={{ opacity: 0.7 }}>click to pin{dragNote ? ` · ${dragNote}` : ""}</div>
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
        {liveNode && (() => {
          const l = liveNode(hit.node);
          return l ? <LiveLines live={l} /> : null;
        })()}
      </>
    ) : null;
  } else if (hit.kind === "pod") {
    const p = geometry.pods[hit.pod];
    body = p ? (
      <BlockLines
        title={p.name}
        summary={p.summary}
        contains={`${countOf(p.racks.length, "rack")} · `}
        figure={blockFigures?.pods[hit.pod]}
        hint="click to zoom in on its racks"
      />
    ) : null;
  } else {
    const r = geometry.racks.find((b) => b.rack === hit.rack);
    body = r ? (
      <BlockLines
        title={`rack ${r.name}`}
        summary={r.summary}
        contains=""
        figure={blockFigures?.racks[hit.rack]}
        hint={r.collapsed ? "click to expand" : hit.block ? "click to zoom in on its nodes" : r.collapsible && hit.header ? "click the title to collapse" : ""}
      />
    ) : null;
  }
  if (!body) return null;
  return (
    <div className="cluster-tooltip" role="tooltip" style={{ left: at.x + 14, top: at.y + 14 }}>
      {body}
    </div>
  );
}
