import { useId } from "react";

import { configFields, extraKeys, withConfigValue, type ConfigField } from "./configFields";
import type { FieldError } from "./dagValidation";
import { FieldErrors } from "./FieldErrors";
import type { ConfigSchema } from "./serviceConfig";

interface ConfigFormProps {
  /** The node's `config` as the document holds it. */
  config: unknown;
  /** Its service's schema; null when the catalogue has none, undefined while the catalogue loads. */
  schema: ConfigSchema | null | undefined;
  /** Where the config is in the spec (`spec.nodes[2].config`): the errors at `<at>.<key>` show at that key. */
  at: string;
  errors: readonly FieldError[];
  editable: boolean;
  /** The node's new config after an edit of `key`. */
  onChange: (config: Record<string, unknown>, key: string) => void;
}

/** The node's service configuration, one field per key of its schema (Node-RED's per-node dialog). */
export function ConfigForm({ config, schema, at, errors, editable, onChange }: ConfigFormProps) {
  const fields = schema ? configFields(schema, config) : [];
  const extra = schema ? extraKeys(schema, config) : [];
  return (
    <fieldset className="config-form" data-testid="config-form">
      <legend>Configuration</legend>
      <FieldErrors errors={errors} field={at} testId="config-error" />
      {schema === undefined && <p className="muted small">The form appears once the service catalogue has loaded.</p>}
      {schema === null && <p className="muted small">No configuration form: the catalogue does not know this service.</p>}
      {schema && fields.length === 0 && (
        <p className="muted small" data-testid="config-none">
          This service takes no configuration.
        </p>
      )}
      {fields.map((f) => (
        <ConfigInput
          key={f.key}
          field={f}
          at={at}
          errors={errors}
          editable={editable}
          onChange={(text) => onChange(withConfigValue(config, f.key, text), f.key)}
        />
      ))}
      {extra.map(({ key, value }) => (
        <div key={key} className="config-field" data-testid={`config-extra-${key}`}>
          <div>
            <span className="config-key">{key}</span> = <code>{value}</code>
          </div>
          <FieldErrors errors={errors} field={`${at}.${key}`} testId={`config-error-${key}`} />
          {editable && (
            <button type="button" data-testid={`config-remove-${key}`} onClick={() => onChange(withConfigValue(config, key, ""), key)}>
              Remove {key}
            </button>
          )}
        </div>
      ))}
    </fieldset>
  );
}

/** How a value must read, before the key's description. */
const TYPE_NAMES: Record<ConfigField["type"], string> = { string: "", integer: "An integer. ", number: "A number. " };

interface ConfigInputProps {
  field: ConfigField;
  at: string;
  errors: readonly FieldError[];
  editable: boolean;
  onChange: (text: string) => void;
}

/** One key: its label (marked when required), the input, what an empty one becomes, its description and its errors. */
function ConfigInput({ field: f, at, errors, editable, onChange }: ConfigInputProps) {
  const id = useId();
  const path = `${at}.${f.key}`;
  const bad = errors.some((e) => e.field === path);
  const note = f.value === "" && f.whenEmpty ? `Empty: ${f.whenEmpty}.` : null;
  const describedBy = [bad && `${id}-error`, note && `${id}-note`, f.description && `${id}-help`].filter(Boolean).join(" ");
  return (
    <div className="config-field">
      <label htmlFor={id} className="config-label">
        <span className="config-key">{f.key}</span>
        {f.required && <span className="config-required"> (required)</span>}
      </label>
      <input
        id={id}
        type="text"
        data-testid={`config-${f.key}`}
        value={f.value}
        placeholder={f.placeholder}
        inputMode={f.inputMode}
        spellCheck={false}
        autoComplete="off"
        readOnly={!editable}
        aria-invalid={bad || undefined}
        aria-describedby={describedBy || undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      <FieldErrors errors={errors} field={path} id={`${id}-error`} testId={`config-error-${f.key}`} />
      {note && (
        <div id={`${id}-note`} className="config-note small" data-testid={`config-note-${f.key}`}>
          {note}
        </div>
      )}
      {f.description && (
        <div id={`${id}-help`} className="muted small">
          {TYPE_NAMES[f.type]}
          {f.description}
        </div>
      )}
    </div>
  );
}
