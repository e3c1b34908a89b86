// Small display helpers for the list views.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The first block of a UUID, enough to tell rows apart. */
export function shortId(id: string): string {
  return id.split("-")[0] ?? id;
}

/** "2026-11-21 18:52:03" in local time; a dash for none, the raw text if unreadable. */
export function formatTime(value: string | null | undefined): string {
  if (value == null || value === "") return "—";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const pad = (n: number) => String(n).padStart(2, "0");
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** A job's progress (0..1, clamped) as a whole percentage: "42 %". */
export function formatProgress(progress: number): string {
  const p = Number.isFinite(progress) ? Math.min(1, Math.max(0, progress)) : 0;
  return `${Math.round(p * 100)} %`;
}

/** "type1-smartnic × 3, type2 × 1" from a cluster's server_types map, by name. */
export function formatServerTypes(types: Record<string, unknown> | null | undefined): string {
  if (!isRecord(types)) return "—";
  const parts = Object.entries(types)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, count]) => (typeof count === "number" ? `${name} × ${count}` : name));
  return parts.length === 0 ? "—" : parts.join(", ");
}

/** A piece of an error's line: plain words, or a code or field path (shown as a chip that never breaks). */
export interface DetailPart {
  text: string;
  code?: true;
}

/** Keys of a field error whose values are machine codes, not words. */
const CODE_KEYS = new Set(["code", "resource"]);

const words = (text: string): DetailPart => ({ text });
const chip = (text: string): DetailPart => ({ text, code: true });

/** "k: v, k: v" of a field error's other keys, a code's value as a chip. */
function extraParts(more: Record<string, unknown>): DetailPart[] {
  return Object.entries(more).flatMap(([k, v], i) => {
    const value = typeof v === "string" ? v : JSON.stringify(v);
    return [words(`${i > 0 ? ", " : ""}${k}: `), CODE_KEYS.has(k) && typeof v === "string" ? chip(value) : words(value)];
  });
}

/**
 * A job's or deployment's error object, in full, as lines of parts: its message (or code),
 * each field error as "field: message (other keys)", then any other keys as JSON. Codes and
 * field paths are parts of their own, so a narrow column never breaks them mid-word.
 * A message equal to `shownMessage` (already on screen, e.g. the job's own message) or to
 * the error's message is not repeated. Null for no error.
 */
export function errorDetailLines(error: unknown, shownMessage?: string): DetailPart[][] | null {
  if (error == null) return null;
  if (typeof error === "string") return error === shownMessage ? null : [[words(error)]];
  if (!isRecord(error)) return [[words(JSON.stringify(error))]];
  const lines: DetailPart[][] = [];
  const { message, code, errors, ...rest } = error;
  const hasCode = typeof code === "string" && code !== "";
  if (typeof message === "string" && message !== "" && message !== shownMessage) {
    lines.push(hasCode ? [words(`${message} (`), chip(code), words(")")] : [words(message)]);
  } else if (hasCode) {
    lines.push([words("code: "), chip(code)]);
  }
  if (Array.isArray(errors)) {
    for (const e of errors) {
      if (isRecord(e)) {
        const { field, message: text, ...more } = e;
        const where = typeof field === "string" && field !== "" ? [chip(field), words(": ")] : [];
        const extra = extraParts(more);
        if (text === message || text === shownMessage) {
          // The same words as above: say only where, and the details.
          lines.push([...(where.length > 0 ? where : [words("detail: ")]), ...(extra.length > 0 ? extra : [words("(as above)")])]);
        } else {
          const body = typeof text === "string" ? text : JSON.stringify(text ?? null);
          lines.push([...where, words(body), ...(extra.length > 0 ? [words(" ("), ...extra, words(")")] : [])]);
        }
      } else {
        lines.push([words(String(e))]);
      }
    }
  } else if (errors !== undefined) {
    rest.errors = errors;
  }
  if (Object.keys(rest).length > 0) lines.push([words(JSON.stringify(rest, null, 2))]);
  return lines.length === 0 ? [[words(JSON.stringify(error))]] : lines;
}

/** errorDetailLines as plain text, a line each. */
export function formatErrorDetail(error: unknown, shownMessage?: string): string | null {
  const lines = errorDetailLines(error, shownMessage);
  return lines === null ? null : lines.map((line) => line.map((p) => p.text).join("")).join("\n");
}

/** Job states (queued, running, succeeded, failed) and deployment states (pending, placing, placed, failed) as a badge colour. */
export function stateTone(state: string): "ok" | "bad" | "pending" {
  const s = state.toLowerCase();
  if (s === "succeeded" || s === "placed") return "ok";
  if (s === "failed") return "bad";
  return "pending";
}

const INSTANCE_STATE_ORDER = ["running", "deploying", "failed", "placed"];

/** "running 3, failed 1" from a deployment's instance_states; "" when nothing ran on an agent (all placed). */
export function formatInstanceStates(states: Record<string, number> | null | undefined): string {
  const entries = Object.entries(states ?? {}).filter(([, n]) => n > 0);
  if (entries.every(([state]) => state === "placed")) return "";
  const rank = (s: string) => (INSTANCE_STATE_ORDER.includes(s) ? INSTANCE_STATE_ORDER.indexOf(s) : 99);
  return entries
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([state, n]) => `${state} ${n}`)
    .join(", ");
}

/** "1 server", "1,000 servers": a count with its noun. */
export function countOf(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
}
