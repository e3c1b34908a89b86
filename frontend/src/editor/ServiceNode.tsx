import { Handle, Position, type Node, type NodeProps } from "@xyflow/react";
import { memo } from "react";

import type { DraftNode } from "./dagDocument";

export interface ServiceNodeData extends Record<string, unknown> {
  node: DraftNode;
  errors: readonly string[];
  hostOnly: boolean;
}

export type ServiceFlowNode = Node<ServiceNodeData, "service">;

function instances(n: DraftNode): string {
  return typeof n.shards === "number" && typeof n.replicas === "number" ? String(n.shards * (1 + n.replicas)) : "?";
}

/** One DAG node: its id, service, shards x (1 + replicas), ports, and its errors. */
export const ServiceNode = memo(function ServiceNode({ data, selected }: NodeProps<ServiceFlowNode>) {
  const { node, errors } = data;
  const bad = errors.length > 0;
  return (
    <div
      data-testid={`dag-node-${node.id}`}
      className={`dag-node${bad ? " dag-node-error" : ""}${selected ? " dag-node-selected" : ""}`}
    >
      <Handle type="target" position={Position.Left} data-testid={`port-in-${node.id}`} className="dag-port" />
      <div className="dag-node-id">{node.id || "(no id)"}</div>
      <div className="dag-node-service">{node.service}</div>
      <div className="dag-node-meta">
        {String(node.shards)} shard(s) × (1 + {String(node.replicas)}) = {instances(node)} inst.
        {node.platform !== "any" && <span className="tag">{String(node.platform)}</span>}
        {data.hostOnly && node.platform === "any" && <span className="tag tag-host">host only</span>}
      </div>
      {bad && (
        <ul className="dag-node-errors" data-testid={`node-error-${node.id}`}>
          {errors.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
      <Handle type="source" position={Position.Right} data-testid={`port-out-${node.id}`} className="dag-port" />
    </div>
  );
});
