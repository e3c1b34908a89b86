import { useMemo } from "react";
import type { DeploymentFollowState } from "./useDeploymentFollow";
import type { JobPollState } from "./useJob";
import { DeploymentStatusSummary } from "../components/DeploymentStatus";
import { formatRuntime } from "../lib/figures";
import { routeHref } from "../lib/route";
import { type StoredJob, formatErrorLine, jobStateLabel, progressText } from "./deployJob";
import { algorithmLabel, describeOptimality, parsePrediction } from "./deployPreview";
import { PredictionFigures } from "./PredictionFigures";
import { MeasuredTag } from "./Tags";

export interface JobPanelProps {
  current: StoredJob;
  poll: JobPollState;
  /** The deployment, followed once its job placed it, until the agents have answered. */
  follow: DeploymentFollowState;
  onViewPlacement?: (deploymentId: string, cluster: string) => void;
  onDismiss: () => void;
}

/** A deploy job's progress, then its outcome: placed, then what the agents answered (running, degraded with
 * their refusals, failed, or placed where no agent runs), with the runtime and prediction; or the job's error
 * in full. */
export function JobPanel({ current, poll, follow, onViewPlacement, onDismiss }: JobPanelProps) {
  const job = poll.job;
  const state = job?.state ?? "queued";
  const deployment = follow.deployment;
  const prediction = useMemo(() => (deployment === null ? null : parsePrediction(deployment.prediction)), [deployment]);
  const done = state === "succeeded" || state === "failed" || poll.error !== null;
  return (
    <section className="job-panel" aria-live="polite" data-testid="job-panel">
      <h3>
        Deploying with {algorithmLabel(current.algorithm)} on {current.cluster}
      </h3>
      <p className="hint">
        job <code>{current.jobId}</code> · deployment <code>{current.deploymentId}</code>
      </p>
      {poll.connectionLost && (
        <div className="connection-lost" role="alert" data-testid="job-connection-lost">
          Connection to the E3 API lost — still retrying ({poll.failedAttempts}{" "}
          {poll.failedAttempts === 1 ? "attempt" : "attempts"}); the job keeps running on the server.
        </div>
      )}
      <div className="job-progress">
        <progress data-testid="deploy-progress" max={1} value={job?.progress ?? 0} />
        <span data-testid="job-state" className={`job-state job-${jobStateLabel(state)}`}>
          {job === null ? "queued" : jobStateLabel(state)}
        </span>
      </div>
      {job !== null && job.state !== "succeeded" && job.state !== "failed" && <p className="job-message">{progressText(job)}</p>}

      {poll.error !== null && (
        <div className="job-error" role="alert" data-testid="job-error">
          <strong>{poll.error}</strong>
        </div>
      )}

      {job?.state === "failed" && job.error !== null && (
        <div className="job-error" role="alert" data-testid="job-error">
          <strong>{job.error.message}</strong>
          {job.error.code !== null && <span className="hint"> ({job.error.code})</span>}
          {job.error.lines.length > 0 && (
            <ul>
              {job.error.lines.map((line, i) => (
                <li key={i}>{formatErrorLine(line)}</li>
              ))}
            </ul>
          )}
        </div>
      )}

      {job?.state === "succeeded" && (
        <div className="job-success" data-testid="job-success">
          <p>
            {job.message}
            {job.runtimeMs !== null && (
              <>
                {" "}
                — algorithm runtime {formatRuntime(job.runtimeMs)} <MeasuredTag />
              </>
            )}
            {job.optimal === false && <span className="warn"> ({describeOptimality(null, false)})</span>}
          </p>
          {follow.loading && <p className="hint">Reading the deployment…</p>}
          {follow.connectionLost && (
            <div className="connection-lost" role="alert">
              Connection to the E3 API lost — still retrying; the agents' answers are not shown until it is back.
            </div>
          )}
          {follow.error !== null && <p className="field-messages">{follow.error}</p>}
          {deployment !== null && <DeploymentStatusSummary deployment={deployment} />}
          {prediction !== null && <PredictionFigures prediction={prediction} />}
          <p className="job-links">
            <a
              href={routeHref({ name: "cluster", cluster: current.cluster })}
              data-testid="view-placement"
              onClick={(e) => {
                if (onViewPlacement) {
                  e.preventDefault();
                  onViewPlacement(current.deploymentId, current.cluster);
                }
              }}
            >
              View placement on {current.cluster}
            </a>
            <a href={routeHref({ name: "deployment", deployment: current.deploymentId })} data-testid="view-deployment">
              Deployment details
            </a>
          </p>
        </div>
      )}

      {done && (
        <button type="button" className="link" onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </section>
  );
}
