// The energy chart's time range: a preset ("last 1 h") or a custom from/to, and the step the API is asked
// for, chosen so the chart has at most about MAX_POINTS steps and each step is whole rollups.

/** The chart draws at most about this many steps (one bar each). */
export const MAX_POINTS = 300;
/** The history's rollup step (s): the finest step the API answers (it says so as `rollup_step_s`). */
export const ROLLUP_STEP_S = 10;

export const PRESETS = [
  { id: "15m", label: "15 min", seconds: 15 * 60 },
  { id: "1h", label: "1 h", seconds: 3600 },
  { id: "6h", label: "6 h", seconds: 6 * 3600 },
  { id: "24h", label: "24 h", seconds: 24 * 3600 },
  { id: "7d", label: "7 d", seconds: 7 * 86400 },
] as const;

export type PresetId = (typeof PRESETS)[number]["id"];

/** What the picker holds: a preset ending now, or a custom range as typed (datetime-local text, local time). */
export type RangeChoice = { kind: "preset"; preset: PresetId } | { kind: "custom"; from: string; to: string };

/** Steps a person reads easily (s): 10 s … 1 day. */
const NICE_STEPS_S = [10, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/** The smallest readable step, a whole number of rollups, that keeps `spanS` to at most `maxPoints` steps. */
export function chooseStep(spanS: number, rollupStepS = ROLLUP_STEP_S, maxPoints = MAX_POINTS): number {
  const least = Math.max(rollupStepS, spanS / maxPoints);
  const nice = NICE_STEPS_S.find((s) => s >= least && s % rollupStepS === 0);
  if (nice !== undefined) return nice;
  return Math.ceil(least / 86400) * 86400;
}

/** The query of a history request: ISO times and the step in seconds. */
export interface RangeQuery {
  from: string;
  to: string;
  step: number;
}

/** A custom range the picker cannot send: the field and why (checks the API makes stay with the API). */
export interface RangeProblem {
  field: "from" | "to";
  message: string;
}

/** datetime-local text (local time) as ms since the epoch, or null when it is not a time. */
export function localTime(text: string): number | null {
  if (text.trim() === "") return null;
  const ms = new Date(text).getTime();
  return Number.isFinite(ms) ? ms : null;
}

/** The request for the last `seconds` before `nowMs`, its start put on a step boundary so successive refreshes
 * ask for the same steps. */
export function lastSecondsQuery(seconds: number, nowMs: number): RangeQuery {
  const step = chooseStep(seconds);
  const stepMs = step * 1000;
  const from = Math.floor((nowMs - seconds * 1000) / stepMs) * stepMs;
  return { from: new Date(from).toISOString(), to: new Date(nowMs).toISOString(), step };
}

/** The request for `choice` at `nowMs`: a preset's as lastSecondsQuery's. A custom range is sent as typed, even
 * backwards: the API's 422 then names the field. */
export function rangeQuery(choice: RangeChoice, nowMs: number): RangeQuery | RangeProblem {
  if (choice.kind === "preset") {
    return lastSecondsQuery(PRESETS.find((p) => p.id === choice.preset)?.seconds ?? 3600, nowMs);
  }
  const from = localTime(choice.from);
  if (from === null) return { field: "from", message: "choose a start time" };
  const to = localTime(choice.to);
  if (to === null) return { field: "to", message: "choose an end time" };
  const step = chooseStep(Math.abs(to - from) / 1000);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), step };
}

export const isRangeProblem = (q: RangeQuery | RangeProblem): q is RangeProblem => "field" in q;

/** A step as a person says it: "10 s", "5 min", "1 h", "1 d". */
export function formatStep(seconds: number): string {
  if (seconds % 86400 === 0) return `${seconds / 86400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** A time as datetime-local text in local time ("2026-11-26T16:05", with `seconds` "2026-11-26T16:05:09"), to fill
 * the custom fields. */
export function toLocalInput(ms: number, { seconds = false }: { seconds?: boolean } = {}): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  const minutes = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return seconds ? `${minutes}:${pad(d.getSeconds())}` : minutes;
}
