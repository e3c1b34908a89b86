import { BaseEdge, EdgeLabelRenderer, getBezierPath, type Edge, type EdgeProps } from "@xyflow/react";

export interface DagEdgeData extends Record<string, unknown> {
  from: string;
  to: string;
  /** Its index in the document's edges. */
  index: number;
  /** At fault (drawn red), with or without a label of its own (a cycle is labelled on one edge). */
  bad: boolean;
  errors: readonly string[];
}

export type DagFlowEdge = Edge<DagEdgeData, "dag">;

/** An edge: red when at fault, with its label next to its middle; blue and thicker when selected. */
export function ErrorEdge(props: EdgeProps<DagFlowEdge>) {
  const [path, labelX, labelY] = getBezierPath(props);
  const errors = props.data?.errors ?? [];
  const bad = props.data?.bad ?? false;
  const stroke = bad ? "#c62828" : props.selected ? "#1565c0" : "#607d8b";
  return (
    <>
      <BaseEdge
        id={props.id}
        path={path}
        markerEnd={props.markerEnd}
        interactionWidth={24}
        className={props.selected ? "dag-edge-selected" : undefined}
        style={{ stroke, strokeWidth: props.selected ? 3.5 : bad ? 2.5 : 1.5 }}
      />
      {errors.length > 0 && props.data && (
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
