import type { FieldError } from "./dagValidation";
import { parseIntField, type DraftNode } from "./dagDocument";

interface PropertiesPanelProps {
  node: DraftNode | null;
  index: number;
  errors: readonly FieldError[];
  editable: boolean;
  onChange: (key: string, patch: Partial<Omit<DraftNode, "key">>, field: string) => void;
  onRemove: (key: string) => void;
}

function FieldErrors({ errors, field }: { errors: readonly FieldError[]; field: string }) {
  const mine = errors.filter((e) => e.field === field);
  if (mine.length === 0) return null;
  return (
    <div className="field-error" role="alert">
      {mine.map((e, i) => (
        <div key={i}>{e.message}</div>
      ))}
    </div>
  );
}

/** The selected node's settings; every error the API gives for a field shows under it. */
export function PropertiesPanel({ node, index, errors, editable, onChange, onRemove }: PropertiesPanelProps) {
  if (!node) return <p className="muted">Select a node to edit it.</p>;
  const at = `spec.nodes[${index}]`;
  const set = (field: string, patch: Partial<Omit<DraftNode, "key">>) => onChange(node.key, patch, field);
  return (
    <div className="properties">
      <label>
        Id
        <input data-testid="prop-id" value={node.id} disabled={!editable} onChange={(e) => set("id", { id: e.target.value })} />
      </label>
      <FieldErrors errors={errors} field={`${at}.id`} />
      <div className="muted">Service: {node.service}</div>
      <FieldErrors errors={errors} field={`${at}.service`} />
      <label>
        Shards
        <input
          data-testid="prop-shards"
          inputMode="numeric"
          value={String(node.shards)}
          disabled={!editable}
          onChange={(e) => set("shards", { shards: parseIntField(e.target.value) })}
        />
      </label>
      <FieldErrors errors={errors} field={`${at}.shards`} />
      <label>
        Replicas (backups per shard)
        <input
          data-testid="prop-replicas"
          inputMode="numeric"
          value={String(node.replicas)}
          disabled={!editable}
          onChange={(e) => set("replicas", { replicas: parseIntField(e.target.value) })}
        />
      </label>
      <FieldErrors errors={errors} field={`${at}.replicas`} />
      <label>
        Platform
        <select
          data-testid="prop-platform"
          value={String(node.platform)}
          disabled={!editable}
          onChange={(e) => set("platform", { platform: e.target.value })}
        >
          <option value="any">any</option>
          <option value="host">host</option>
          <option value="smartnic">smartnic</option>
        </select>
      </label>
      <FieldErrors errors={errors} field={`${at}.constraints.platform`} />
      <label>
        Request size (bytes)
        <input
          data-testid="prop-request-bytes"
          inputMode="numeric"
          value={String(node.request_bytes)}
          disabled={!editable}
          onChange={(e) => set("request_bytes", { request_bytes: parseIntField(e.target.value) })}
        />
      </label>
      <FieldErrors errors={errors} field={`${at}.request_bytes`} />
      {editable && (
        <button type="button" className="danger" onClick={() => onRemove(node.key)}>
          Remove node
        </button>
      )}
    </div>
  );
}
