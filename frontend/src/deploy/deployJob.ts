// Deploy jobs: their state and progress for a person, their errors in full, where an
// API refusal belongs on the form, and the job id kept across reloads.

import { ApiError, NetworkError } from "../lib/errors";

export type JobState = "queued" | "running" | "succeeded" | "failed";

export interface JobView {
  id: string;
  state: string;
  progress: number;
  message: string;
  deploymentId: string | null;
  /** The algorithm's own running time, from job.result (measured by the worker). */
  runtimeMs: number | null;
  algorithm: string | null;
  optimal: boolean | null;
  instances: number | null;
  error: { message: string; code: string | null; lines: JobErrorLine[] } | null;
}

/** One entry of an error's `errors[]`, every field it carries. */
export interface JobErrorLine {
  field: string | null;
  message: string;
  code: string | null;
  resource: string | null;
  instance: string | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function describeInstance(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value === "" ? null : value;
  if (isRecord(value)) {
    return Object.entries(value)
      .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
      .join(", ");
  }
  return String(value);
}

/** Each `errors[]` entry of an API or job error body, with its resource and instance. */
export function parseErrorLines(error: unknown): JobErrorLine[] {
  if (!isRecord(error) || !Array.isArray(error.errors)) return [];
  return error.errors.filter(isRecord).map((e) => ({
    field: str(e.field),
    message: typeof e.message === "string" ? e.message : String(e.message ?? ""),
    code: str(e.code),
    resource: str(e.resource),
    instance: describeInstance(e.instance),
  }));
}

/** One line per entry: "spec.nodes[3]: no room for … (resource: cores; instance: …)". */
export function formatErrorLine(line: JobErrorLine): string {
  const extras: string[] = [];
  if (line.resource !== null) extras.push(`resource: ${line.resource}`);
  if (line.instance !== null) extras.push(`instance: ${line.instance}`);
  const head = line.field === null ? line.message : `${line.field}: ${line.message}`;
  return extras.length === 0 ? head : `${head} (${extras.join("; ")})`;
}

/** GET /jobs/{id} as what the page shows; progress clamped to 0..1. */
export function parseJob(value: unknown): JobView | null {
  if (!isRecord(value) || typeof value.id !== "string") return null;
  const result = isRecord(value.result) ? value.result : {};
  const rawError = value.error;
  let error: JobView["error"] = null;
  if (isRecord(rawError)) {
    error = {
      message: str(rawError.message) ?? str(value.message) ?? "The job failed",
      code: str(rawError.code),
      lines: parseErrorLines(rawError),
    };
  } else if (value.state === "failed") {
    error = { message: str(value.message) ?? "The job failed", code: null, lines: [] };
  }
  const progress = num(value.progress) ?? 0;
  return {
    id: value.id,
    state: typeof value.state === "string" ? value.state : "queued",
    progress: Math.min(1, Math.max(0, progress)),
    message: typeof value.message === "string" ? value.message : "",
    deploymentId: str(value.deployment_id),
    runtimeMs: num(result.runtime_ms),
    algorithm: str(result.algorithm),
    optimal: typeof result.optimal === "boolean" ? result.optimal : null,
    instances: num(result.instances),
    error,
  };
}

export function isTerminal(state: string): boolean {
  return state === "succeeded" || state === "failed";
}

/** The deploy job's state as the page shows it: the job only places the deployment, so its success reads
 * "placed" (whether the instances run is the deployment's status, from its agents' answers). */
export function jobStateLabel(state: string): string {
  return state === "succeeded" ? "placed" : state;
}

/** "running — placed 40 of 108 instances (37%)". */
export function progressText(job: Pick<JobView, "state" | "progress" | "message">): string {
  const pct = `${Math.round(job.progress * 100)}%`;
  const message = job.message.trim();
  if (job.state === "succeeded" || job.state === "failed") return message === "" ? job.state : `${job.state} — ${message}`;
  return message === "" ? `${job.state} (${pct})` : `${job.state} — ${message} (${pct})`;
}

/** Poll interval: 400 ms while the API answers, slower (to 2 s) while the connection is lost. */
export function pollDelayMs(consecutiveFailures: number): number {
  if (consecutiveFailures <= 0) return 400;
  return Math.min(2000, 400 * 2 ** Math.min(consecutiveFailures, 3));
}

export const CONNECTION_LOST_MESSAGE = "Cannot reach the E3 API — check the connection and try again";

/** The form fields an API refusal can point at. */
export type FormField = "cluster" | "algorithm" | "offered_rps" | "ilp_time_limit_s" | "application" | "other";

/** Which form field an error's `field` (E3 or FastAPI "body.x" style) belongs to. */
export function formFieldOf(field: string | null | undefined): FormField {
  if (!field) return "other";
  const name = field.replace(/^body\./, "").split(/[.[]/)[0] ?? "";
  if (name === "cluster") return "cluster";
  if (name === "algorithm" || name === "algorithms") return "algorithm";
  if (name === "offered_rps") return "offered_rps";
  if (name === "ilp_time_limit_s") return "ilp_time_limit_s";
  if (name === "application" || name === "version" || name === "spec") return "application";
  return "other";
}

/** An API refusal split by the form field it concerns; messages that name no field go to "other". */
export function refusalsByField(error: unknown): Partial<Record<FormField, string[]>> {
  const out: Partial<Record<FormField, string[]>> = {};
  const add = (key: FormField, message: string) => (out[key] ??= []).push(message);
  if (error instanceof ApiError) {
    if (error.errors.length > 0) {
      for (const e of error.errors) add(formFieldOf(e.field), e.message);
    } else if (error.status === 404 && /^cluster\b/i.test(error.message)) {
      add("cluster", error.message);
    } else if (error.status === 404 && /^(application|template)\b/i.test(error.message)) {
      add("application", error.message);
    } else {
      add("other", error.message);
    }
    return out;
  }
  if (isConnectionError(error)) add("other", CONNECTION_LOST_MESSAGE);
  else add("other", error instanceof Error ? error.message : String(error));
  return out;
}

export function isAbortError(error: unknown): boolean {
  return (
    (error instanceof DOMException && error.name === "AbortError") ||
    (error instanceof Error && error.name === "AbortError")
  );
}

/** No HTTP answer at all (openapi-fetch lets fetch's TypeError through). */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  if (error instanceof ApiError) return error.status === 502 || error.status === 503 || error.status === 504;
  return error instanceof TypeError;
}

/** The deploy in flight for an application, kept in sessionStorage so a reload resumes polling. */
export interface StoredJob {
  jobId: string;
  deploymentId: string;
  cluster: string;
  algorithm: string;
}

export function storedJobKey(application: string): string {
  return `e3.deploy.job.${application}`;
}

export function loadStoredJob(storage: Pick<Storage, "getItem"> | null, application: string): StoredJob | null {
  if (storage === null) return null;
  let raw: string | null;
  try {
    raw = storage.getItem(storedJobKey(application));
  } catch {
    return null;
  }
  if (raw === null) return null;
  try {
    const v: unknown = JSON.parse(raw);
    if (
      isRecord(v) &&
      typeof v.jobId === "string" &&
      typeof v.deploymentId === "string" &&
      typeof v.cluster === "string" &&
      typeof v.algorithm === "string"
    ) {
      return { jobId: v.jobId, deploymentId: v.deploymentId, cluster: v.cluster, algorithm: v.algorithm };
    }
  } catch {
    // unreadable: treated as nothing stored
  }
  return null;
}

export function saveStoredJob(
  storage: Pick<Storage, "setItem" | "removeItem"> | null,
  application: string,
  job: StoredJob | null,
): void {
  if (storage === null) return;
  try {
    if (job === null) storage.removeItem(storedJobKey(application));
    else storage.setItem(storedJobKey(application), JSON.stringify(job));
  } catch {
    // storage full or refused: the job id stays in React state only
  }
}
