import {
  applyNodeChanges,
  Background,
  Controls,
  MarkerType,
  Panel,
  ReactFlow,
  useReactFlow,
  type Connection,
  type EdgeChange,
  type Node,
  type NodeChange,
  type OnDelete,
} from "@xyflow/react";
import { type Dispatch, type SetStateAction, useCallback, useEffect, useMemo, useState, type DragEvent } from "react";

import type { XY } from "../viz/dagLayout";
import type { DagDocument } from "./dagDocument";
import { ErrorEdge, type DagFlowEdge } from "./ErrorEdge";
import { SERVICE_MIME } from "./Palette";
import { applySelectChanges, edgeId, type Selection } from "./selection";
import { ServiceNode, type ServiceFlowNode } from "./ServiceNode";

const nodeTypes = { service: ServiceNode };
const edgeTypes = { dag: ErrorEdge };
const NO_ERRORS: readonly string[] = [];
/** Where a dropped node's top-left goes relative to the pointer: the node's middle lands under it. */
const DROP_GRIP: XY = { x: 80, y: 30 };

interface DagCanvasProps {
  doc: DagDocument;
  /** node index -> messages; edge index -> labels (present when the edge is at fault) */
  nodeErrors: ReadonlyMap<number, string[]>;
  edgeErrors: ReadonlyMap<number, string[]>;
  /** Labels about the drawing as a whole (a cycle), shown once at its top. */
  notices: readonly string[];
  hostOnly: ReadonlySet<string>;
  selection: Selection;
  editable: boolean;
  /** Bumped when a whole new document is loaded, to fit it into view. */
  fitToken: number;
  onSelectionChange: Dispatch<SetStateAction<Selection>>;
  onDropService: (service: string, at: XY) => void;
  onConnect: (fromId: string, toId: string) => void;
  onMove: (moves: Record<string, XY>) => void;
  onDelete: (nodeKeys: string[], edgeIndices: number[]) => void;
}

/**
 * The xyflow canvas, controlled: the selection (nodes and edges, by click, Shift+click or a
 * Shift+drag box) lives in the editor, node positions live here while a node is dragged and reach
 * the document (one undo step, no re-validation) only when the drag ends.
 */
export function DagCanvas(props: DagCanvasProps) {
  const { doc, nodeErrors, edgeErrors, notices, hostOnly, selection, editable, fitToken } = props;
  const { onSelectionChange, onDropService, onConnect, onMove, onDelete } = props;
  const flow = useReactFlow();
  const [nodes, setNodes] = useState<ServiceFlowNode[]>([]);

  // The document (its errors, the selection) -> xyflow nodes, keeping the sizes xyflow measured.
  useEffect(() => {
    const selected = new Set(selection.nodes);
    setNodes((previous) => {
      const before = new Map(previous.map((n) => [n.id, n]));
      return doc.nodes.map((n, i) => {
        const old = before.get(n.key);
        const errors = nodeErrors.get(i) ?? NO_ERRORS;
        const position = doc.positions[n.key] ?? { x: 0, y: 0 };
        const data =
          old && old.data.node === n && sameList(old.data.errors, errors) && old.data.hostOnly === hostOnly.has(n.service)
            ? old.data
            : { node: n, errors, hostOnly: hostOnly.has(n.service) };
        const isSelected = selected.has(n.key);
        if (old && old.data === data && old.position === position && !!old.selected === isSelected) return old;
        return { ...(old ?? {}), id: n.key, type: "service" as const, position, data, selected: isSelected };
      });
    });
  }, [doc.nodes, doc.positions, nodeErrors, hostOnly, selection.nodes]);

  const edges = useMemo<DagFlowEdge[]>(() => {
    const keyOf = new Map<string, string>();
    for (const n of doc.nodes) if (!keyOf.has(n.id)) keyOf.set(n.id, n.key);
    const selected = new Set(selection.edges);
    const seen = new Map<string, number>();
    const out: DagFlowEdge[] = [];
    doc.edges.forEach((e, j) => {
      const source = keyOf.get(e.from);
      const target = keyOf.get(e.to);
      if (!source || !target) return; // dangling: listed in the validation summary
      const id = edgeId(e.from, e.to, seen);
      out.push({
        id,
        source,
        target,
        type: "dag",
        selected: selected.has(id),
        ariaLabel: `edge ${e.from} to ${e.to}`,
        markerEnd: { type: MarkerType.ArrowClosed },
        data: { from: e.from, to: e.to, index: j, bad: edgeErrors.has(j), errors: edgeErrors.get(j) ?? NO_ERRORS },
      });
    });
    return out;
  }, [doc.nodes, doc.edges, edgeErrors, selection.edges]);

  const onNodesChange = useCallback(
    (changes: NodeChange<ServiceFlowNode>[]) => {
      // removals go through onDelete, so they become one undo step; selections through the editor
      setNodes((ns) => applyNodeChanges(changes.filter((c) => c.type !== "remove" && c.type !== "select"), ns));
      if (changes.some((c) => c.type === "select")) onSelectionChange((s) => applySelectChanges(s, changes, "nodes"));
    },
    [onSelectionChange],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<DagFlowEdge>[]) => {
      if (changes.some((c) => c.type === "select")) onSelectionChange((s) => applySelectChanges(s, changes, "edges"));
    },
    [onSelectionChange],
  );

  const handleConnect = useCallback(
    (c: Connection) => {
      const from = doc.nodes.find((n) => n.key === c.source);
      const to = doc.nodes.find((n) => n.key === c.target);
      if (from && to) onConnect(from.id, to.id);
    },
    [doc.nodes, onConnect],
  );

  const handleDelete = useCallback<OnDelete<ServiceFlowNode, DagFlowEdge>>(
    ({ nodes: gone, edges: goneEdges }) => {
      onDelete(
        gone.map((n) => n.id),
        goneEdges.flatMap((e) => (e.data ? [e.data.index] : [])),
      );
    },
    [onDelete],
  );

  const onDragStop = useCallback(
    (dragged: Node[]) => {
      const moves: Record<string, XY> = {};
      for (const n of dragged) moves[n.id] = { x: n.position.x, y: n.position.y };
      onMove(moves);
    },
    [onMove],
  );

  const onDragOver = useCallback((event: DragEvent) => {
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
  }, []);

  const onDrop = useCallback(
    (event: DragEvent) => {
      event.preventDefault();
      if (!editable) return;
      const service = event.dataTransfer.getData(SERVICE_MIME) || event.dataTransfer.getData("text/plain");
      if (!service) return;
      const at = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
      onDropService(service, { x: at.x - DROP_GRIP.x, y: at.y - DROP_GRIP.y });
    },
    [editable, flow, onDropService],
  );

  // Fit a newly loaded document into view, but never an empty one: xyflow keeps a fit of an empty
  // canvas queued until the first node appears, and that node would then jump to the middle
  // instead of staying where it was dropped. (The document is read, not watched: adding nodes
  // must not fit the view.)
  const empty = doc.nodes.length === 0;
  useEffect(() => {
    if (fitToken === 0 || empty) return;
    const t = window.setTimeout(() => void flow.fitView({ padding: 0.2, duration: 0, maxZoom: 1 }), 50);
    return () => window.clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [fitToken, flow]);

  return (
    <div className="dag-canvas" data-testid="dag-canvas" onDragOver={onDragOver} onDrop={onDrop}>
      <ReactFlow<ServiceFlowNode, DagFlowEdge>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={handleConnect}
        onDelete={handleDelete}
        onNodeDragStop={(_e, _node, dragged) => onDragStop(dragged)}
        onSelectionDragStop={(_e, dragged) => onDragStop(dragged)}
        nodesDraggable={editable}
        nodesConnectable={editable}
        elementsSelectable
        multiSelectionKeyCode={["Shift", "Control", "Meta"]}
        selectionKeyCode="Shift"
        deleteKeyCode={editable ? ["Backspace", "Delete"] : null}
        minZoom={0.2}
        maxZoom={2}
        defaultViewport={{ x: 40, y: 40, zoom: 1 }}
      >
        {notices.length > 0 && (
          <Panel position="top-center">
            {notices.map((n) => (
              <div key={n} className="dag-canvas-notice" data-testid="canvas-notice">
                {n}
              </div>
            ))}
          </Panel>
        )}
        <Background gap={20} />
        <Controls showInteractive={false} />
      </ReactFlow>
      {doc.nodes.length === 0 && (
        <div className="dag-canvas-empty">Drag a microservice here from the palette (or focus it and press Enter), or load a template.</div>
      )}
    </div>
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => x === b[i]));
}
