// A deployment's status (the API's `status`, derived from its placement and its instances' ACKs/NACKs) and an
// instance's state, as words and colours for a person. Shared by the deploy page, the lists, the deployment's
// page and the placement view. Pure.

/** What the API says a deployment is doing (backend/e3/services/deployment_status.py). */
export type DeploymentStatus = "placing" | "deploying" | "running" | "degraded" | "failed" | "placed";

/** Badge colours: running green, degraded amber, failed red, placing/deploying neutral, placed grey. */
export type StatusTone = "ok" | "warn" | "bad" | "pending" | "idle";

const STATUS_LABELS: Record<DeploymentStatus, string> = {
  placing: "Placing",
  deploying: "Deploying",
  running: "Running",
  degraded: "Degraded",
  failed: "Failed",
  placed: "Placed",
};

const STATUS_TONES: Record<DeploymentStatus, StatusTone> = {
  placing: "pending",
  deploying: "pending",
  running: "ok",
  degraded: "warn",
  failed: "bad",
  placed: "idle",
};

function known(status: string): status is DeploymentStatus {
  return Object.hasOwn(STATUS_LABELS, status);
}

/** "Degraded"; a status this UI does not know is shown as the API wrote it. */
export function statusLabel(status: string): string {
  return known(status) ? STATUS_LABELS[status] : status;
}

export function statusTone(status: string): StatusTone {
  return known(status) ? STATUS_TONES[status] : "pending";
}

/** Whether the status can still change by itself (the job places it, the agents answer). */
export function isSettling(status: string): boolean {
  return status === "placing" || status === "deploying";
}

/** The parts of a deployment (DeploymentPublic) its status line needs. */
export interface StatusSource {
  status: string;
  status_reason?: string | null;
  instances: number;
  instance_states?: Record<string, number> | null;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** One line saying what the deployment is doing and, when it is not running, why. */
export function statusHeadline(d: StatusSource): string {
  const total = d.instances;
  const running = d.instance_states?.running ?? 0;
  const reason = d.status_reason?.trim() || null;
  switch (d.status) {
    case "placing":
      return "Placing…";
    case "deploying":
      return `Placed — deploying to agents (${running.toLocaleString("en-US")} of ${plural(total, "instance")} running)…`;
    case "running":
      return total === 1 ? "Running — its instance runs" : `Running — all ${plural(total, "instance")} running`;
    case "degraded":
      return `Degraded: ${reason ?? "some instances do not run"}`;
    case "failed":
      return `Failed: ${reason ?? "nothing runs"}`;
    case "placed":
      return "Placed — no agent runs these nodes: nothing executes it";
    default:
      return reason === null ? d.status : `${d.status}: ${reason}`;
  }
}

/** One reason agents gave for refusing instances (DeploymentPublic.refusals). */
export interface Refusal {
  code: string;
  message: string;
  instances: number;
}

/** "bad_config: engine: api_gateway: config needs keys=… (4 instances)". */
export function formatRefusal(r: Refusal): string {
  return `${r.code}: ${r.message} (${plural(r.instances, "instance")})`;
}

/** An instance's state (placed | deploying | running | failed | seeding) as a badge colour. */
export function instanceStateTone(state: string): StatusTone {
  switch (state) {
    case "running":
      return "ok";
    case "failed":
      return "bad";
    case "placed":
      return "idle";
    default:
      return "pending";
  }
}

/** What an instance's state means, in a few words ("" for a state this UI does not know). */
export function instanceStateMeaning(state: string): string {
  switch (state) {
    case "running":
      return "its agent ACKed it";
    case "deploying":
      return "waiting for its agent's answer";
    case "seeding":
      return "a new backup receiving its state";
    case "placed":
      return "no agent runs its node, nothing executes it";
    case "failed":
      return "refused by its agent";
    default:
      return "";
  }
}

/** An instance's error ({code, message}, the agent's NACK) as "bad_config: …"; null for none. */
export function formatInstanceError(error: unknown): string | null {
  if (typeof error !== "object" || error === null) return typeof error === "string" && error !== "" ? error : null;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const c = typeof code === "string" && code !== "" ? code : null;
  const m = typeof message === "string" && message !== "" ? message : null;
  if (c !== null && m !== null) return `${c}: ${m}`;
  return m ?? c;
}

/** "failed: refused by its agent: bad_config: …", "running: its agent ACKed it". */
export function describeInstanceState(state: string, error?: unknown): string {
  return [state, instanceStateMeaning(state), formatInstanceError(error)].filter((x) => x !== null && x !== "").join(": ");
}
