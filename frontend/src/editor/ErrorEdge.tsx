import { BaseEdge, EdgeLabelRenderer, getBezierPath, type Edge, type EdgeProps } from "@xyflow/react";

export interface DagEdgeData extends Record<string, unknown> {
  from: string;
  to: string;
  errors: readonly string[];
}

export type DagFlowEdge = Edge<DagEdgeData, "dag">;

/** An edge; when it is at fault it turns red and says why, next to its middle. */
export function ErrorEdge(props: EdgeProps<DagFlowEdge>) {
  const [path, labelX, labelY] = getBezierPath(props);
  const errors = props.data?.errors ?? [];
  const bad = errors.length > 0;
  return (
    <>
      <BaseEdge
        id={props.id}
        path={path}
        markerEnd={props.markerEnd}
        style={{ stroke: bad ? "#c62828" : props.selected ? "#1565c0" : "#607d8b", strokeWidth: bad || props.selected ? 2.5 : 1.5 }}
      />
      {bad && props.data && (
        <EdgeLabelRenderer>
          <div
            className="dag-edge-error nodrag nopan"
            data-testid={`edge-error-${props.data.from}-${props.data.to}`}
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
          >
            {errors.map((m, i) => (
              <div key={i}>{m}</div>
            ))}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}
