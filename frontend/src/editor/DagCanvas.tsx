import {
  applyNodeChanges,
  Background,
  Controls,
  MarkerType,
  ReactFlow,
  useReactFlow,
  type Connection,
  type NodeChange,
  type OnDelete,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useState, type DragEvent } from "react";

import type { XY } from "../viz/dagLayout";
import type { DagDocument } from "./dagDocument";
import { ErrorEdge, type DagFlowEdge } from "./ErrorEdge";
import { SERVICE_MIME } from "./Palette";
import { ServiceNode, type ServiceFlowNode } from "./ServiceNode";

const nodeTypes = { service: ServiceNode };
const edgeTypes = { dag: ErrorEdge };
const NO_ERRORS: readonly string[] = [];

interface DagCanvasProps {
  doc: DagDocument;
  /** node index -> messages; edge index -> messages */
  nodeErrors: ReadonlyMap<number, string[]>;
  edgeErrors: ReadonlyMap<number, string[]>;
  hostOnly: ReadonlySet<string>;
  selectedKey: string | null;
  editable: boolean;
  /** Bumped when a whole new document is loaded, to fit it into view. */
  fitToken: number;
  onSelect: (key: string | null) => void;
  onDropService: (service: string, at: XY) => void;
  onConnect: (fromId: string, toId: string) => void;
  onMove: (moves: Record<string, XY>) => void;
  onDelete: (nodeKeys: string[], edgeIndices: number[]) => void;
}

/**
 * The xyflow canvas. Node positions live here while a node is dragged and reach the document
 * (one undo step, no re-validation) only when the drag ends.
 */
export function DagCanvas(props: DagCanvasProps) {
  const { doc, nodeErrors, edgeErrors, hostOnly, selectedKey, editable, fitToken } = props;
  const { onSelect, onDropService, onConnect, onMove, onDelete } = props;
  const flow = useReactFlow();
  const [nodes, setNodes] = useState<ServiceFlowNode[]>([]);

  // The document (and its errors) -> xyflow nodes, keeping the sizes xyflow measured.
  useEffect(() => {
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
        return {
          ...(old ?? {}),
          id: n.key,
          type: "service" as const,
          position,
          data,
          selected: n.key === selectedKey,
        };
      });
    });
  }, [doc.nodes, doc.positions, nodeErrors, hostOnly, selectedKey]);

  const edges = useMemo<DagFlowEdge[]>(() => {
    const keyOf = new Map<string, string>();
    for (const n of doc.nodes) if (!keyOf.has(n.id)) keyOf.set(n.id, n.key);
    const out: DagFlowEdge[] = [];
    doc.edges.forEach((e, j) => {
      const source = keyOf.get(e.from);
      const target = keyOf.get(e.to);
      if (!source || !target) return; // dangling: listed in the validation summary
      out.push({
        id: `e${j}`,
        source,
        target,
        type: "dag",
        markerEnd: { type: MarkerType.ArrowClosed },
        data: { from: e.from, to: e.to, errors: edgeErrors.get(j) ?? NO_ERRORS },
      });
    });
    return out;
  }, [doc.nodes, doc.edges, edgeErrors]);

  const onNodesChange = useCallback(
    (changes: NodeChange<ServiceFlowNode>[]) => {
      // removals go through onDelete, so they become one undo step
      setNodes((ns) => applyNodeChanges(changes.filter((c) => c.type !== "remove"), ns));
      for (const c of changes) if (c.type === "select" && c.selected) onSelect(c.id);
    },
    [onSelect],
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
        goneEdges.map((e) => Number(e.id.slice(1))),
      );
    },
    [onDelete],
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
      onDropService(service, { x: at.x - 80, y: at.y - 30 });
    },
    [editable, flow, onDropService],
  );

  useEffect(() => {
    if (fitToken === 0) return;
    const t = window.setTimeout(() => void flow.fitView({ padding: 0.2, duration: 0, maxZoom: 1 }), 50);
    return () => window.clearTimeout(t);
  }, [fitToken, flow]);

  return (
    <div className="dag-canvas" data-testid="dag-canvas" onDragOver={onDragOver} onDrop={onDrop}>
      <ReactFlow<ServiceFlowNode, DagFlowEdge>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onConnect={handleConnect}
        onDelete={handleDelete}
        onNodeDragStop={(_e, _node, dragged) => {
          const moves: Record<string, XY> = {};
          for (const n of dragged) moves[n.id] = { x: n.position.x, y: n.position.y };
          onMove(moves);
        }}
        onPaneClick={() => onSelect(null)}
        nodesDraggable={editable}
        nodesConnectable={editable}
        elementsSelectable
        deleteKeyCode={editable ? ["Backspace", "Delete"] : null}
        minZoom={0.2}
        maxZoom={2}
        defaultViewport={{ x: 40, y: 40, zoom: 1 }}
      >
        <Background gap={20} />
        <Controls showInteractive={false} />
      </ReactFlow>
      {doc.nodes.length === 0 && (
        <div className="dag-canvas-empty">Drag a microservice here from the palette, or load a template.</div>
      )}
    </div>
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => x === b[i]));
}
