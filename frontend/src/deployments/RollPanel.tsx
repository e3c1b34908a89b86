import { useCallback, useEffect, useState } from "react";
import { type DeploymentRow, listApplicationVersions } from "../api/client";
import { progressText } from "../deploy/deployJob";
import { useJob } from "../deploy/useJob";
import { describeError } from "../lib/errors";
import { routeHref } from "../lib/route";
import { rollDeployment } from "./deploymentApi";

interface Props {
  deployment: DeploymentRow;
}

/** Rolls the deployment to another version of its application, blue/green: the job's progress, then a link to
 * the new deployment; or, when its agents refused the new version, the reason and that this one runs on. */
export function RollPanel({ deployment: d }: Props) {
  const [versions, setVersions] = useState<number[]>([]);
  const [version, setVersion] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [started, setStarted] = useState<{ jobId: string; deploymentId: string } | null>(null);
  const { job } = useJob(started?.jobId ?? null);

  // The versions other than this one, newest first; read again when the list is opened (a version saved in the
  // editor meanwhile shows up without a reload).
  const loadVersions = useCallback(
    (signal?: AbortSignal) =>
      listApplicationVersions(d.application, { limit: 100, offset: 0 }, signal)
        .then((page) => {
          const others = page.items.map((v) => v.version).filter((v) => v !== d.version);
          setVersions(others);
          setVersion((chosen) => (chosen !== null && others.includes(chosen) ? chosen : (others[0] ?? null)));
        })
        .catch((e) => !signal?.aborted && setError(describeError(e))),
    [d.application, d.version],
  );

  useEffect(() => {
    const controller = new AbortController();
    void loadVersions(controller.signal);
    return () => controller.abort();
  }, [loadVersions]);

  const roll = async () => {
    if (version === null) return;
    setError(null);
    try {
      setStarted(await rollDeployment(d.id, version));
    } catch (e) {
      setError(describeError(e));
    }
  };

  const running = started !== null && (job === null || (job.state !== "succeeded" && job.state !== "failed"));
  return (
    <section className="panel" aria-labelledby="roll-title" data-testid="roll-panel">
      <h3 id="roll-title">Roll to another version</h3>
      {versions.length === 0 && error === null ? (
        <p className="muted">
          {d.application} has no other version. Save one in the{" "}
          <a href={routeHref({ name: "editor", application: d.application })}>editor</a> first.
        </p>
      ) : (
        <p>
          <label>
            Version{" "}
            <select
              data-testid="roll-version"
              value={version ?? ""}
              onChange={(e) => setVersion(Number(e.target.value))}
              onFocus={() => void loadVersions()}
              disabled={running}
            >
              {versions.map((v) => (
                <option key={v} value={v}>
                  v{v}
                </option>
              ))}
            </select>
          </label>{" "}
          <button type="button" data-testid="roll-button" onClick={roll} disabled={version === null || running}>
            Roll
          </button>{" "}
          <span className="muted small">
            The new version is placed beside this one and replaces it once its agents run it; if they refuse it, it is
            removed again and this one runs on.
          </span>
        </p>
      )}
      {error !== null && (
        <p className="error" role="alert" data-testid="roll-error">
          {error}
        </p>
      )}
      {job !== null && (
        <p
          className={job.state === "failed" ? "error" : job.state === "succeeded" ? "ok" : ""}
          role={job.state === "failed" ? "alert" : "status"}
          data-testid="roll-status"
        >
          {job.state === "failed" ? `Rolled back: ${job.error?.message ?? job.message}` : progressText(job)}
          {job.state === "succeeded" && started !== null && (
            <>
              {" "}
              <a href={routeHref({ name: "deployment", deployment: started.deploymentId })} data-testid="roll-new">
                the new deployment
              </a>
            </>
          )}
        </p>
      )}
    </section>
  );
}
