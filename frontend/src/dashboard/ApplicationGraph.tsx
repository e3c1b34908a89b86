import "./appGraph.css";

import { type KeyboardEvent, useId, useMemo, useState } from "react";

import { withDagFocus } from "../lib/dagFocusQuery";
import { routeHref } from "../lib/route";
import type { LiveApplication, LiveInstance, LiveNode } from "../live/types";
import type { XY } from "../viz/dagLayout";
import { HEAT_GRADIENT, readableInk } from "../viz/heatRamp";
import {
  COLOUR_CHOICES,
  COLOUR_ORDER,
  type ColourBy,
  type ColourScale,
  type EdgeGeometry,
  GRAPH_BOX,
  type LiveDagNode,
  type LiveEdge,
  NOT_MEASURED_FILL,
  boxTitle,
  colourScale,
  dagNodeDetails,
  dagNodeInstances,
  edgeKey,
  edgeLabel,
  edgeLook,
  edgeTitle,
  figureOf,
  graphLayout,
  graphShapeKey,
  maxEdgeRate,
  nodeLatencyText,
  platformText,
  staleText,
} from "./appGraph";
import { MISSING, formatJoulesPerRequest, formatRps } from "./format";

const { nodeWidth: W, nodeHeight: H } = GRAPH_BOX;
const PAD_X = 7; // text inset from the box's sides

/** The arrow heads: one dark, one grey for edges without traffic measured (a marker does not take its path's
 * colour in every browser). Drawn in px, not by stroke width, so a thick edge does not get a huge head. */
function ArrowMarkers({ id }: { id: string }) {
  return (
    <defs>
      {(["", "-muted"] as const).map((variant) => (
        <marker
          key={variant}
          id={`${id}${variant}`}
          className={`app-graph-arrow${variant}`}
          viewBox="0 0 10 10"
          refX={0}
          refY={5}
          markerWidth={9}
          markerHeight={9}
          markerUnits="userSpaceOnUse"
          orient="auto"
        >
          <path d="M0,0 L10,5 L0,10 z" />
        </marker>
      ))}
    </defs>
  );
}

interface GraphEdgeProps {
  edge: LiveEdge;
  at: EdgeGeometry;
  maxRate: number;
  markerId: string;
}

function GraphEdge({ edge, at, maxRate, markerId }: GraphEdgeProps) {
  const look = edgeLook(edge, maxRate);
  const width = Math.round(look.width * 10) / 10; // a tenth of a pixel is as fine as a screen shows
  return (
    <g
      data-testid="graph-edge"
      data-from={edge.from}
      data-to={edge.to}
      data-rate={edge.rate_rps ?? ""}
      data-basis={edge.basis}
      className={`app-graph-edge${look.muted ? " app-graph-edge-muted" : ""}`}
    >
      <title>{edgeTitle(edge)}</title>
      <path
        d={at.path}
        strokeWidth={width}
        strokeDasharray={look.dashed ? "5 4" : undefined}
        markerEnd={`url(#${markerId}${look.muted ? "-muted" : ""})`}
      />
      <text className="app-graph-edge-label" x={at.mid.x} y={at.mid.y - Math.max(4, Math.ceil(width / 2) + 2)}>
        {edgeLabel(edge)}
      </text>
    </g>
  );
}

interface GraphNodeProps {
  node: LiveDagNode;
  at: XY;
  fill: string;
  ink: string;
  selected: boolean;
  onToggle: (id: string) => void;
}

function GraphNode({ node, at, fill, ink, selected, onToggle }: GraphNodeProps) {
  const id = node.dag_node;
  const stale = staleText(node);
  const onKeyDown = (e: KeyboardEvent<SVGGElement>) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault(); // Space would scroll the page
    onToggle(id);
  };
  return (
    <g
      data-testid="graph-node"
      data-dag-node={id}
      className={`app-graph-node${selected ? " app-graph-node-selected" : ""}`}
      transform={`translate(${at.x},${at.y})`}
      tabIndex={0}
      role="button"
      aria-pressed={selected}
      aria-label={`${id}: ${selected ? "hide" : "show"} its figures`}
      onClick={() => onToggle(id)}
      onKeyDown={onKeyDown}
    >
      <title>{id}</title>
      <rect
        className="app-graph-box"
        width={W}
        height={H}
        rx={6}
        fill={fill}
        strokeDasharray={stale ? "4 3" : undefined}
      />
      <g fill={ink}>
        <text className="app-graph-id" x={PAD_X} y={14}>
          {boxTitle(id)}
        </text>
        <text x={PAD_X} y={27}>
          {platformText(node.instances)}
        </text>
        <text x={PAD_X} y={41}>
          {formatRps(node.throughput_rps)}
        </text>
        <text x={W - PAD_X} y={41} textAnchor="end">
          {formatJoulesPerRequest(node.joules_per_request)}
        </text>
        <text x={PAD_X} y={55}>
          {nodeLatencyText(node)}
        </text>
      </g>
      {stale ? (
        <text className="app-graph-stale" x={2} y={H + 10}>
          {stale}
        </text>
      ) : null}
    </g>
  );
}

function GraphLegend({ by, scale }: { by: ColourBy; scale: ColourScale }) {
  const choice = COLOUR_CHOICES[by];
  const measured = scale.min !== null;
  return (
    <span
      className="app-graph-legend"
      data-testid="graph-legend"
      data-unit={scale.unit}
      title={`colour: ${choice.title}, in ${scale.unit}; yellow the least among its DAG nodes, red the most`}
    >
      <span className="app-graph-legend-min">{measured ? choice.format(scale.min) : MISSING}</span>
      <span className="app-graph-ramp" style={{ background: HEAT_GRADIENT }} />
      <span className="app-graph-legend-max">{measured ? choice.format(scale.max) : MISSING}</span>
      <span className="app-graph-legend-none">
        <span className="app-graph-swatch" style={{ background: NOT_MEASURED_FILL }} /> grey: not measured
      </span>
    </span>
  );
}

interface GraphControlsProps {
  by: ColourBy;
  onChange: (by: ColourBy) => void;
  scale: ColourScale;
}

function GraphControls({ by, onChange, scale }: GraphControlsProps) {
  return (
    <div className="app-graph-controls">
      <label>
        Colour by{" "}
        <select data-testid="graph-colour" value={by} onChange={(e) => onChange(e.target.value as ColourBy)}>
          {COLOUR_ORDER.map((key) => (
            <option key={key} value={key}>
              {COLOUR_CHOICES[key].label}
            </option>
          ))}
        </select>
      </label>
      <GraphLegend by={by} scale={scale} />
    </div>
  );
}

type GraphNodes = readonly Pick<LiveNode, "id" | "name" | "kind" | "state">[];

interface DetailsProps {
  node: LiveDagNode;
  deploymentId: string;
  clusterName: string;
  instances: readonly LiveInstance[];
  nodes: GraphNodes;
}

function DagNodeDetails({ node, deploymentId, clusterName, instances, nodes }: DetailsProps) {
  const placed = dagNodeInstances(node.dag_node, deploymentId, instances, nodes);
  return (
    <div className="app-graph-details" data-testid="graph-details" data-dag-node={node.dag_node}>
      <strong>{node.dag_node}</strong>
      <dl>
        {dagNodeDetails(node).map(([label, text]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{text}</dd>
          </div>
        ))}
      </dl>
      {placed.length > 0 ? (
        <table className="app-graph-instances">
          <caption>Its instances</caption>
          <thead>
            <tr>
              <th scope="col">shard</th>
              <th scope="col">role</th>
              <th scope="col">node</th>
              <th scope="col">platform</th>
              <th scope="col">node state</th>
            </tr>
          </thead>
          <tbody>
            {placed.map((i) => (
              <tr key={i.id} data-testid="graph-instance" data-state={i.state}>
                <td>{i.shard}</td>
                <td>{i.role}</td>
                <td>{i.node}</td>
                <td>{i.platform}</td>
                <td>{i.state}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <a
        href={withDagFocus(routeHref({ name: "cluster", cluster: clusterName }), { deployment: deploymentId, dagNode: node.dag_node })}
        data-testid="graph-placement-link"
      >
        its instances on the placement view, with their recent events
      </a>
    </div>
  );
}

// An id usable in url(#…): React's ids may hold characters a URL fragment reference does not take as they are.
const useMarkerId = (): string => `app-graph-arrow-${useId().replace(/[^A-Za-z0-9_-]/g, "")}`;

/** The application's DAG, live: boxes coloured by the figure chosen, edges as thick as their rate. A click (or
 * Enter/Space) on a DAG node shows its figures below the graph. Nothing when the channel sends no DAG. */
export function ApplicationGraph({
  app,
  clusterName,
  instances = [],
  clusterNodes = [],
}: {
  app: LiveApplication;
  clusterName: string;
  /** The cluster's instances and nodes (the live view's): a selected DAG node lists its instances, where and how. */
  instances?: readonly LiveInstance[];
  clusterNodes?: GraphNodes;
}) {
  const [colourBy, setColourBy] = useState<ColourBy>("joules");
  const [selected, setSelected] = useState<string | null>(null);
  const markerId = useMarkerId();
  const shape = graphShapeKey(app);
  // Keyed on the DAG's shape alone: the figures change every second, the shape only with a new version.
  const layout = useMemo(() => graphLayout(app), [shape]);
  const nodes = app.dag_nodes ?? [];
  if (nodes.length === 0) return null;
  const edges = app.edges ?? [];
  const scale = colourScale(nodes, colourBy);
  const maxRate = maxEdgeRate(edges);
  const toggle = (id: string) => setSelected((current) => (current === id ? null : id));
  const chosen = nodes.find((n) => n.dag_node === selected);
  return (
    <div className="app-graph">
      <GraphControls by={colourBy} onChange={setColourBy} scale={scale} />
      <div className="app-graph-scroll">
        <svg
          className="app-graph-svg"
          data-testid="app-graph"
          role="group"
          aria-label={`${app.application} service graph`}
          width={layout.width}
          height={layout.height}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
        >
          <ArrowMarkers id={markerId} />
          {edges.map((edge, i) => {
            const at = layout.edges.get(edgeKey(edge.from, edge.to));
            return at ? <GraphEdge key={i} edge={edge} at={at} maxRate={maxRate} markerId={markerId} /> : null;
          })}
          {nodes.map((node) => {
            const at = layout.boxes.get(node.dag_node);
            if (!at) return null;
            const fill = scale.colour(figureOf(node, colourBy));
            return (
              <GraphNode
                key={node.dag_node}
                node={node}
                at={at}
                fill={fill}
                ink={readableInk(fill)}
                selected={selected === node.dag_node}
                onToggle={toggle}
              />
            );
          })}
        </svg>
      </div>
      {chosen ? (
        <DagNodeDetails
          node={chosen}
          deploymentId={app.deployment_id}
          clusterName={clusterName}
          instances={instances}
          nodes={clusterNodes}
        />
      ) : null}
    </div>
  );
}
