import type { DeploymentRow } from "../api/client";
import {
  describeInstanceState,
  formatRefusal,
  instanceStateTone,
  statusHeadline,
  statusLabel,
  statusTone,
} from "../lib/deploymentStatus";
import { formatErrorDetail } from "../lib/format";

/** A deployment's status as a badge, its reason in the tooltip. */
export function DeploymentStatusBadge({ status, reason }: { status: string; reason?: string | null }) {
  return (
    <span className={`badge ${statusTone(status)}`} title={reason ?? undefined} data-testid="status-badge" data-status={status}>
      {statusLabel(status)}
    </span>
  );
}

/** An instance's state as a badge, what it means (and the agent's refusal) in the tooltip. */
export function InstanceStateBadge({ state, error }: { state: string; error?: unknown }) {
  return (
    <span className={`badge ${instanceStateTone(state)}`} title={describeInstanceState(state, error)} data-testid="instance-state" data-state={state}>
      {state}
    </span>
  );
}

/** What a deployment is doing, in a sentence, with every refusal its agents gave (code, message, count); a
 * failed or degraded deployment reads as an error or a warning, never as success. */
export function DeploymentStatusSummary({ deployment: d }: { deployment: DeploymentRow }) {
  const tone = statusTone(d.status);
  const refusals = d.refusals ?? [];
  // A refused placement: its error in full (the reason line has its message only).
  const placementError = d.state === "failed" ? formatErrorDetail(d.error, d.status_reason ?? undefined) : null;
  return (
    <div
      className={`deployment-status status-${tone}`}
      data-testid="deployment-status"
      data-status={d.status}
      role={tone === "bad" || tone === "warn" ? "alert" : "status"}
    >
      <p className="deployment-status-line">
        <strong data-testid="deployment-status-text">{statusHeadline(d)}</strong>
      </p>
      {refusals.length > 0 && (
        <div className="deployment-refusals">
          <span>Refused by their agents:</span>
          <ul data-testid="deployment-refusals">
            {refusals.map((r) => (
              <li key={`${r.code}\u0000${r.message}`}>{formatRefusal(r)}</li>
            ))}
          </ul>
        </div>
      )}
      {placementError !== null && <pre className="error-detail">{placementError}</pre>}
    </div>
  );
}
