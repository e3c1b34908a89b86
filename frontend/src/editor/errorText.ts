// The validation's words made readable for a person in the editor. Pure: no React, no DOM.
// dagValidation.ts keeps the API's exact messages (they are compared with the backend's); this
// module only rewrites them for display: no regular expressions, field paths named by node.

import type { FieldError } from "./dagValidation";

/** Cycles longer than this are shortened in their label. */
const CYCLE_LABEL_NODES = 6;

/** One short label for a cycle [a, b, c]: "cycle: a → b → c → a". */
export function cycleLabel(cycle: readonly string[]): string {
  if (cycle.length === 0) return "cycle";
  const loop = [...cycle, cycle[0]!];
  if (cycle.length <= CYCLE_LABEL_NODES) return `cycle: ${loop.join(" → ")}`;
  return `cycle of ${cycle.length} nodes: ${loop.slice(0, 3).join(" → ")} → … → ${cycle[0]}`;
}

// "'' is not valid: <help> (pattern ^...$)": the backend's (and dagValidation's) pattern message.
const PATTERN_MESSAGE = /^(.*) is not valid: (.*) \(pattern .*\)$/s;
// A pattern without help ("must match ^...$"), or pydantic's own words for one.
const BARE_PATTERN = /^(must match |String should match pattern )/;

/** `error`'s message in plain words: a pattern is described, never shown. */
export function plainMessage(error: Pick<FieldError, "message">): string {
  const m = PATTERN_MESSAGE.exec(error.message);
  if (m) {
    const [, value, help] = m;
    return value === "''" || value === '""' ? `is required: ${help}` : `${value} is not valid: ${help}`;
  }
  if (BARE_PATTERN.test(error.message)) return "contains characters that are not allowed here";
  return error.message;
}

/** The errors with their messages in plain words (fields, codes and details kept). */
export function inPlainWords(errors: readonly FieldError[]): FieldError[] {
  return errors.map((e) => {
    const message = plainMessage(e);
    return message === e.message ? e : { ...e, message };
  });
}

const WHOLE_LABELS: Record<string, string> = {
  "metadata.name": "Name",
  "metadata.description": "Description",
  "spec.nodes": "nodes",
  "spec.edges": "edges",
};

/**
 * Where an error is, for a person: "Name", "node kvs: shards", "edge a → b", "edges" (a cycle);
 * the field path itself for any other.
 */
export function fieldLabel(field: string, nodeIds: readonly string[], edges: readonly { from: string; to: string }[]): string {
  const whole = WHOLE_LABELS[field];
  if (whole) return whole;
  const node = /^spec\.nodes\[(\d+)\]\.?(.*)$/.exec(field);
  if (node) {
    const id = nodeIds[Number(node[1])];
    const part = node[2]!.replace(/^constraints\./, "");
    return `node ${id || `#${Number(node[1]) + 1}`}${part ? `: ${part}` : ""}`;
  }
  const edge = /^spec\.edges\[(\d+)\]\.?(.*)$/.exec(field);
  if (edge) {
    const e = edges[Number(edge[1])];
    const name = e ? `edge ${e.from} → ${e.to}` : `edge #${Number(edge[1]) + 1}`;
    return edge[2] ? `${name}: ${edge[2]}` : name;
  }
  return field;
}
