import { ConfigForm } from "./ConfigForm";
import { parseIntField, type DraftNode } from "./dagDocument";
import type { FieldError } from "./dagValidation";
import { FieldErrors } from "./FieldErrors";
import type { ConfigSchema } from "./serviceConfig";

interface PropertiesPanelProps {
  node: DraftNode | null;
  index: number;
  errors: readonly FieldError[];
  /** The node's service's configuration schema; null when the catalogue has none for it, undefined
   * while the catalogue loads. */
  configSchema: ConfigSchema | null | undefined;
  editable: boolean;
  onChange: (key: string, patch: Partial<Omit<DraftNode, "key">>, field: string) => void;
  onRemove: (key: string) => void;
}

/** The selected node's settings and its service's configuration; every error the API gives for a field
 * shows under it. */
export function PropertiesPanel({ node, index, errors, configSchema, editable, onChange, onRemove }: PropertiesPanelProps) {
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
      <ConfigForm
        key={node.key}
        config={node.config}
        schema={configSchema}
        at={`${at}.config`}
        errors={errors}
        editable={editable}
        onChange={(config, key) => set(`config.${key}`, { config })}
      />
      {editable && (
        <button type="button" className="danger" onClick={() => onRemove(node.key)}>
          Remove node
        </button>
      )}
    </div>
  );
}
