// The properties panel's configuration form, from a service's schema (serviceConfig.ts): one field per key,
// what an empty one becomes, and what typing in one does to the node's `config`. Pure: no React, no DOM.
// An empty field leaves its key out of the config: an optional key then takes the service's own default,
// a required one is filled in when the application is saved (its default, or a generated value).

import { isFilledAtSave, type ConfigSchema, type ConfigType } from "./serviceConfig";

export interface ConfigField {
  key: string;
  type: ConfigType;
  description: string;
  required: boolean;
  /** What the node's config holds for the key; "" when it leaves the key out. */
  value: string;
  /** Shown in the empty input: "default: 100"; "" for a key without a default. */
  placeholder: string;
  /** What a save writes for the key while the field is empty ("generated when saved", "filled with
   * id:int,value:real when saved"); null when it writes nothing (the service's default applies). */
  whenEmpty: string | null;
  /** The on-screen keyboard to offer: digits for an integer, decimals for a number. */
  inputMode: "text" | "numeric" | "decimal";
}

/** A key of the config that the schema does not have (from a pasted YAML, say), with its value as text. */
export interface ExtraKey {
  key: string;
  value: string;
}

function entriesOf(config: unknown): Record<string, unknown> {
  return typeof config === "object" && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>) : {};
}

/** A config value as the form shows it: a string as it is, anything else (a YAML number) as written. */
function asText(value: unknown): string {
  if (value === undefined) return "";
  return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
}

const INPUT_MODES: Record<ConfigType, ConfigField["inputMode"]> = { string: "text", integer: "numeric", number: "decimal" };

/** The form's fields, in the schema's order, with the values `config` holds. */
export function configFields(schema: ConfigSchema, config: unknown): ConfigField[] {
  const values = entriesOf(config);
  return Object.entries(schema.properties).map(([key, prop]) => {
    const required = schema.required.includes(key);
    const filled = required && isFilledAtSave(prop);
    return {
      key,
      type: prop.type,
      description: prop.description,
      required,
      value: Object.hasOwn(values, key) ? asText(values[key]) : "",
      placeholder: prop.default !== undefined ? `default: ${prop.default}` : "",
      whenEmpty: !filled ? null : prop.generated ? "generated when saved" : `filled with ${prop.default} when saved`,
      inputMode: INPUT_MODES[prop.type],
    };
  });
}

/** The config's keys that `schema` does not declare, in the config's order. */
export function extraKeys(schema: ConfigSchema, config: unknown): ExtraKey[] {
  return Object.entries(entriesOf(config))
    .filter(([key]) => !Object.hasOwn(schema.properties, key))
    .map(([key, value]) => ({ key, value: asText(value) }));
}

/** `config` with `key` set to `text`, or left out when `text` is empty; the other keys as they were. */
export function withConfigValue(config: unknown, key: string, text: string): Record<string, unknown> {
  const next = { ...entriesOf(config) };
  if (text === "") delete next[key];
  else next[key] = text;
  return next;
}
