// A DAG node's service configuration (`config`) checked against its service's schema from the catalogue
// (GET /api/v1/catalog/services, `config_schema`), with the API's rules and words
// (backend/e3/schemas/service_config.py), so the editor's form answers on the keystroke. Pure: no React,
// no DOM. The server stays the authority.
//
// Values are strings, as the agent hands them to the service; a schema says how each must read:
// "integer" is decimal digits (an optional '-', no leading zeros), "number" a decimal fraction with an
// optional exponent, finite and not subnormal, both at most 63 characters.

import type { FieldError } from "./dagValidation";
import { reprlibRepr } from "./pythonRepr";

export type ConfigType = "string" | "integer" | "number";
const CONFIG_TYPES: readonly string[] = ["string", "integer", "number"];

/** One key of a service's configuration, as its schema declares it. */
export interface ConfigProperty {
  type: ConfigType;
  description: string;
  /** What the service uses when the key is left out (and, for a required key, what a save writes). */
  default?: string | number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  /** Anchored, in ECMA-262 syntax. */
  pattern?: string;
  /** `x-e3-generate`: a save generates a random value when the (required) key is left out. */
  generated: boolean;
}

/** A service's configuration schema: its keys in the schema's order, and the required ones. */
export interface ConfigSchema {
  properties: Readonly<Record<string, ConfigProperty>>;
  required: readonly string[];
}

/** Service name -> its configuration schema. */
export type ConfigSchemas = Readonly<Record<string, ConfigSchema>>;

const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
const NUMBER_TEXT = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
/** The C reads a number through a 64-byte buffer, NUL included. */
const NUMBER_MAX_CHARS = 63;
/** The smallest normal double (Python's sys.float_info.min): anything closer to 0 underflowed. */
const FLOAT_MIN = 2.2250738585072014e-308;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const numberOr = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/** The catalogue's `config_schema` (typed `unknown` by the API's client) read as the subset the API checks. */
export function readConfigSchema(raw: unknown): ConfigSchema {
  const schema = isRecord(raw) ? raw : {};
  const props = isRecord(schema.properties) ? schema.properties : {};
  const properties: Record<string, ConfigProperty> = {};
  for (const [key, value] of Object.entries(props)) {
    const p = isRecord(value) ? value : {};
    properties[key] = {
      type: typeof p.type === "string" && CONFIG_TYPES.includes(p.type) ? (p.type as ConfigType) : "string",
      description: typeof p.description === "string" ? p.description : "",
      ...(typeof p.default === "string" || typeof p.default === "number" ? { default: p.default } : {}),
      minimum: numberOr(p.minimum),
      maximum: numberOr(p.maximum),
      exclusiveMinimum: numberOr(p.exclusiveMinimum),
      exclusiveMaximum: numberOr(p.exclusiveMaximum),
      multipleOf: numberOr(p.multipleOf),
      pattern: typeof p.pattern === "string" ? p.pattern : undefined,
      generated: isRecord(p["x-e3-generate"]),
    };
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string") : [];
  return { properties, required };
}

/** A key left out that a save fills in: from its `default`, or generated. */
export function isFilledAtSave(prop: ConfigProperty): boolean {
  return prop.default !== undefined || prop.generated;
}

const patterns = new Map<string, RegExp | null>();

/** `pattern` compiled with code-point semantics (as Python's `re` reads a str); null if it cannot be, in
 * which case only the server checks it. */
function compiled(pattern: string): RegExp | null {
  let re = patterns.get(pattern);
  if (re === undefined) {
    re = null;
    for (const flags of ["u", ""]) {
      try {
        re = new RegExp(pattern, flags);
        break;
      } catch {
        // try without the flag, else leave it to the server
      }
    }
    patterns.set(pattern, re);
  }
  return re;
}

/** `text` read as `prop`'s type: an integer as a bigint (exact, as Python's int), a number as a double;
 * or why it is not one. */
export function parseValue(prop: ConfigProperty, text: string): { value: bigint | number | string } | { why: string } {
  if (prop.type === "integer") {
    if (text.length > NUMBER_MAX_CHARS || !INTEGER_TEXT.test(text)) {
      return { why: `must be an integer in decimal digits without leading zeros, got ${reprlibRepr(text)}` };
    }
    return { value: BigInt(text) };
  }
  if (prop.type === "number") {
    const value = text.length <= NUMBER_MAX_CHARS && NUMBER_TEXT.test(text) ? Number(text) : NaN;
    const mantissa = text.split(/[eE]/)[0] ?? "";
    const underflow = (0 < Math.abs(value) && Math.abs(value) < FLOAT_MIN) || (value === 0 && /[1-9]/.test(mantissa));
    if (!Number.isFinite(value) || underflow) {
      return { why: `must be a decimal number such as 0.5 or 1e3, got ${reprlibRepr(text)}` };
    }
    return { value };
  }
  return { value: text };
}

/**
 * An integer bound as Python holds it. JSON.parse rounds an integer past 2^53 (flow_monitor's seed maximum,
 * 2^63 - 1, reads as 2^63); every integer a service reads is a C long, so such a bound is taken within a
 * long's range, which gives it back exactly.
 */
function exactBound(bound: number): bigint {
  const b = BigInt(bound);
  if (Number.isSafeInteger(bound)) return b;
  return b > INT64_MAX ? INT64_MAX : b < INT64_MIN ? INT64_MIN : b;
}

/** A bound as Python prints it. */
const boundText = (bound: number): string => (Number.isInteger(bound) ? String(exactBound(bound)) : String(bound));

/** -1, 0 or 1 as `value` is below, at or above `bound`; an integer compared exactly. */
function compare(value: bigint | number, bound: number): number {
  if (typeof value === "bigint" && Number.isInteger(bound)) {
    const b = exactBound(bound);
    return value < b ? -1 : value > b ? 1 : 0;
  }
  const v = Number(value);
  return v < bound ? -1 : v > bound ? 1 : 0;
}

function notMultiple(value: bigint | number, of: number): boolean {
  if (typeof value === "bigint" && Number.isInteger(of)) return value % exactBound(of) !== 0n;
  return Number(value) % of !== 0;
}

/** What bound of `prop`'s `value` (written `text`) breaks, in the API's words; null if none. */
function rangeError(prop: ConfigProperty, value: bigint | number, text: string): string | null {
  const { minimum, exclusiveMinimum, maximum, exclusiveMaximum, multipleOf } = prop;
  if (minimum !== undefined && compare(value, minimum) < 0) return `must be at least ${boundText(minimum)}, got ${text}`;
  if (exclusiveMinimum !== undefined && compare(value, exclusiveMinimum) <= 0) {
    return `must be greater than ${boundText(exclusiveMinimum)}, got ${text}`;
  }
  if (maximum !== undefined && compare(value, maximum) > 0) return `must be at most ${boundText(maximum)}, got ${text}`;
  if (exclusiveMaximum !== undefined && compare(value, exclusiveMaximum) >= 0) {
    return `must be less than ${boundText(exclusiveMaximum)}, got ${text}`;
  }
  if (multipleOf !== undefined && notMultiple(value, multipleOf)) return `must be a multiple of ${boundText(multipleOf)}, got ${text}`;
  return null;
}

/** What is wrong with `text` as the value of the known key `prop`, located at `field`; null if nothing. */
export function valueError(prop: ConfigProperty, text: string, field: string): FieldError | null {
  const parsed = parseValue(prop, text);
  if ("why" in parsed) return { field, message: parsed.why, code: "wrong_type" };
  const broken = typeof parsed.value === "string" ? null : rangeError(prop, parsed.value, text);
  if (broken) return { field, message: broken, code: "out_of_range" };
  const re = prop.pattern === undefined ? null : compiled(prop.pattern);
  if (re && !re.test(text)) {
    return { field, message: `${reprlibRepr(text)} is not valid: ${prop.description}`, code: "pattern_mismatch" };
  }
  return null;
}

/**
 * Every problem of `config` as `service`'s configuration, located under `path` (`spec.nodes[2].config`), in
 * the API's order: each key as written (unknown, or a bad value), then the required keys missing that a
 * save cannot fill in.
 */
export function configErrors(service: string, schema: ConfigSchema, config: Readonly<Record<string, string>>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const valid = Object.keys(schema.properties).sort();
  for (const [key, text] of Object.entries(config)) {
    const prop = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (!prop) {
      const takes = valid.length > 0 ? `its keys: ${valid.join(", ")}` : "it takes no configuration";
      errors.push({ field: `${path}.${key}`, message: `unknown key ${reprlibRepr(key)} for ${service}; ${takes}`, code: "unknown_field" });
      continue;
    }
    const error = valueError(prop, text, `${path}.${key}`);
    if (error) errors.push(error);
  }
  for (const key of schema.required) {
    const prop = schema.properties[key];
    if (prop && !Object.hasOwn(config, key) && !isFilledAtSave(prop)) {
      errors.push({ field: `${path}.${key}`, message: `is required by ${service}: ${prop.description}`, code: "missing" });
    }
  }
  return errors;
}
