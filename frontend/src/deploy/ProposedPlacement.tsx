import { useMemo, useRef } from "react";
import { useClusterCanvas } from "../cluster/useClusterCanvas";
import { useClusterLayout } from "../cluster/useClusterLayout";
import type { ClusterCanvasModel } from "../viz/clusterCanvas";
import { computeClusterLayout } from "../viz/clusterLayout";
import { appColors } from "../viz/colors";
import { algorithmLabel, type ProposedInstance } from "./deployPreview";
import { proposedByNode, proposedLabel, proposedLayout } from "./proposedPlacement";

const EMPTY: readonly number[] = [];
const NOTHING = () => undefined;
/** The proposed instances' colour: not an application's. */
const PROPOSED_COLOR = "#2457c5";
/** Nodes listed in words under the drawing before "and N more". */
const LISTED_NODES = 24;

/** One previewed algorithm's placement on the cluster's drawing (read-only), beside what is deployed. */
export function ProposedPlacement({
  cluster,
  algorithm,
  assignments,
  onClose,
}: {
  cluster: string;
  algorithm: string;
  assignments: readonly ProposedInstance[];
  onClose: () => void;
}) {
  const { layout, arrivedAt, loading, error } = useClusterLayout(cluster);
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  const label = proposedLabel(algorithmLabel(algorithm));
  const proposal = useMemo(() => (layout ? proposedLayout(layout, label, assignments) : null), [layout, label, assignments]);
  const geometry = useMemo(() => (proposal ? computeClusterLayout(proposal.data, { aspect: 2.2 }) : null), [proposal]);
  const deployed = useMemo(() => appColors(layout?.deployments.map((d) => d.application) ?? []), [layout]);
  const model = useMemo<ClusterCanvasModel | null>(
    () =>
      proposal && geometry
        ? {
            geometry,
            deploymentColors: proposal.data.deployments.map((d, i) =>
              i === proposal.proposedDeployment ? PROPOSED_COLOR : deployed.color(d.application),
            ),
            serverNames: proposal.data.servers.map((s) => s.name),
            nodeNames: proposal.data.nodes.map((n) => n.name),
            selected: null,
            highlighted: EMPTY,
            fitKey: `${cluster}|${algorithm}`,
            dataArrivedAt: arrivedAt,
            dragNodes: null,
          }
        : null,
    [proposal, geometry, deployed, cluster, algorithm, arrivedAt],
  );
  useClusterCanvas(canvasRef, model, { onHover: NOTHING, onSelect: NOTHING });

  const byNode = useMemo(() => proposedByNode(assignments), [assignments]);

  return (
    <section className="proposed-placement" data-testid="proposed-placement" data-algorithm={algorithm}>
      <div className="proposed-head">
        <h4>
          {assignments.length} instances {label} on {cluster}
        </h4>
        <button type="button" onClick={onClose} data-testid="proposed-close">
          Hide
        </button>
      </div>
      <p className="proposed-legend hint">
        <span className="swatch proposed" style={{ borderColor: PROPOSED_COLOR }} /> {label}: dashed, lightly filled
        {deployed.entries.map((e) => (
          <span key={e.application}>
            {" · "}
            <span className="swatch" style={{ background: e.color }} /> deployed: {e.application}
          </span>
        ))}
        {" · "}scroll to zoom, drag to pan; Fit happens on opening.
      </p>
      <div className="proposed-stage">
        <canvas ref={canvasRef} className="proposed-canvas" data-testid="proposed-canvas" aria-label={`${label} on ${cluster}`} />
        {loading && !layout && <p className="cluster-hint">Loading the cluster…</p>}
      </div>
      {error !== null && <p className="error">Could not load the cluster: {error}</p>}
      {proposal !== null && proposal.unknownNodes.length > 0 && (
        <p className="warn">Not drawn (nodes not in the cluster's layout): {proposal.unknownNodes.join(", ")}</p>
      )}
      <details className="proposed-nodes" open={byNode.length <= 8}>
        <summary>Per node ({byNode.length} nodes)</summary>
        <ul data-testid="proposed-nodes">
          {byNode.slice(0, LISTED_NODES).map((n) => (
            <li key={n.node} data-node={n.node}>
              <code>{n.node}</code> → {n.instances.join(", ")}
            </li>
          ))}
          {byNode.length > LISTED_NODES && <li>and {byNode.length - LISTED_NODES} more nodes</li>}
        </ul>
      </details>
    </section>
  );
}
