import type { DeployResultState } from "./useDeployResult";
import type { JobPollState } from "./useJob";
import { formatRuntime } from "../lib/figures";
import { type StoredJob, formatErrorLine, progressText } from "./deployJob";
import { algorithmLabel } from "./deployPreview";
import { PredictionFigures } from "./PredictionFigures";
import { MeasuredTag } from "./Tags";

export interface JobPanelProps {
  current: StoredJob;
  poll: JobPollState;
  result: DeployResultState;
  onViewPlacement?: (deploymentId: string, cluster: string) => void;
  onDismiss: () => void;
}

/** A deploy job's progress, then its outcome: the runtime and prediction, or its error in full. */
export function JobPanel({ current, poll, result, onViewPlacement, onDismiss }: JobPanelProps) {
  const job = poll.job;
  const state = job?.state ?? "queued";
  const done = state === "succeeded" || state === "failed" || poll.error !== null;
  return (
    <section className="job-panel" aria-live="polite">
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
        <span data-testid="job-state" className={`job-state job-${state}`}>
          {job === null ? "queued" : state}
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
            {job.optimal === false && <span className="warn"> (ILP stopped at its time cap: optimal: false)</span>}
          </p>
          {result.loading && <p className="hint">Loading the deployment…</p>}
          {result.error !== null && <p className="field-messages">{result.error}</p>}
          {result.prediction !== null && <PredictionFigures prediction={result.prediction} />}
          <a
            href={`#/clusters/${encodeURIComponent(current.cluster)}`}
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
