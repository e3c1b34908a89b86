import { useEffect, useMemo, useState } from "react";
import { DeployForm } from "./DeployForm";
import { JobPanel } from "./JobPanel";
import { PreviewForm } from "./PreviewForm";
import { PreviewTable } from "./PreviewTable";
import { ProposedPlacement } from "./ProposedPlacement";
import "./deploy.css";
import { useDeployClusters } from "./useDeployClusters";
import { useDeploymentFollow } from "./useDeploymentFollow";
import { useDeployStart } from "./useDeployStart";
import { useJob } from "./useJob";
import { usePreview } from "./usePreview";
import { type FormField, type StoredJob, loadStoredJob, refusalsByField, saveStoredJob } from "./deployJob";
import { DEFAULT_ALGORITHM, buildPreviewRequest, preselectAlgorithm } from "./deployPreview";
import { defaultCluster } from "./clusterChoice";

export interface DeployPageProps {
  applicationName: string;
  canDeploy: boolean;
  onDeployed?: (deploymentId: string, cluster: string) => void;
}

function sessionStore(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** What-if preview of the four placement algorithms on a cluster, then deploy with one and follow its job. */
export function DeployPage({ applicationName, canDeploy, onDeployed }: DeployPageProps) {
  const clusters = useDeployClusters();
  const preview = usePreview();
  const deployStart = useDeployStart();

  const [current, setCurrent] = useState<StoredJob | null>(() => loadStoredJob(sessionStore(), applicationName));
  const [cluster, setCluster] = useState<string>(() => current?.cluster ?? "");
  const [offeredRps, setOfferedRps] = useState("");
  const [ilpTimeLimitS, setIlpTimeLimitS] = useState("10");
  const [formErrors, setFormErrors] = useState<Partial<Record<FormField, string[]>>>({});
  const [algorithm, setAlgorithm] = useState(DEFAULT_ALGORITHM);
  /** The previewed algorithm whose placement is drawn on the cluster, or null. */
  const [shownPlacement, setShownPlacement] = useState<string | null>(null);

  // Another application in the same page instance: pick up its own stored job.
  useEffect(() => {
    setCurrent(loadStoredJob(sessionStore(), applicationName));
  }, [applicationName]);

  // Default to a cluster run by agents (else the first) once they are known, or when the chosen one disappeared.
  useEffect(() => {
    if (clusters.loading || clusters.clusters.length === 0) return;
    const choice = defaultCluster(clusters.clusters, cluster);
    if (choice !== cluster) setCluster(choice);
  }, [clusters.loading, clusters.clusters, cluster]);

  // Each new preview preselects its best algorithm (by predicted req/J), else HCM, and shows no placement yet.
  useEffect(() => {
    if (preview.table !== null) setAlgorithm(preselectAlgorithm(preview.table));
    setShownPlacement(null);
  }, [preview.table]);
  const shownRow = preview.table?.rows.find((r) => r.algorithm === shownPlacement) ?? null;

  const poll = useJob(current?.jobId ?? null);
  const follow = useDeploymentFollow(current?.deploymentId ?? null, poll.job?.state === "succeeded");

  const deployMessages = useMemo(
    () => (deployStart.error === null ? {} : refusalsByField(deployStart.error)),
    [deployStart.error],
  );
  // The preview form shows its own refusals, plus a deploy refusal about the cluster next to the cluster select.
  const previewMessages = useMemo(() => {
    const own = Object.keys(formErrors).length > 0 ? formErrors : preview.status === "failed" ? refusalsByField(preview.error) : {};
    const cluster = [...(own.cluster ?? []), ...(deployMessages.cluster ?? [])];
    return cluster.length > 0 ? { ...own, cluster } : own;
  }, [formErrors, preview.status, preview.error, deployMessages]);

  const runPreview = () => {
    const built = buildPreviewRequest({ cluster, application: applicationName, offeredRps, ilpTimeLimitS });
    if (built.body === null) {
      setFormErrors(Object.fromEntries(Object.entries(built.errors).map(([k, v]) => [k, [v]])));
      return;
    }
    setFormErrors({});
    preview.run(built.body);
  };

  const deploy = async () => {
    const accepted = await deployStart.start(applicationName, cluster, algorithm);
    if (accepted === null) return;
    const job: StoredJob = { ...accepted, cluster, algorithm };
    saveStoredJob(sessionStore(), applicationName, job);
    setCurrent(job);
  };

  const dismiss = () => {
    saveStoredJob(sessionStore(), applicationName, null);
    setCurrent(null);
  };

  const jobActive = current !== null && poll.error === null && poll.job?.state !== "succeeded" && poll.job?.state !== "failed";

  return (
    <div className="deploy-page">
      <header className="deploy-header">
        <h2>
          Deploy <code>{applicationName}</code>
        </h2>
        <p className="hint">
          Compare where HCM, annealing, the ILP and first fit would put it, then deploy with one. Figures tagged
          <em> modelled</em> are predicted by the cost model, not measured; only algorithm runtimes are measured.
        </p>
      </header>

      <section className="deploy-section">
        <h3>What-if preview</h3>
        <PreviewForm
          clusters={clusters.clusters}
          clustersLoading={clusters.loading}
          clustersError={clusters.error}
          clustersTruncated={clusters.truncated}
          cluster={cluster}
          offeredRps={offeredRps}
          ilpTimeLimitS={ilpTimeLimitS}
          onCluster={(name) => {
            setCluster(name);
            deployStart.clearError();
          }}
          onOfferedRps={setOfferedRps}
          onIlpTimeLimitS={setIlpTimeLimitS}
          onPreview={runPreview}
          onCancel={preview.cancel}
          running={preview.status === "running"}
          startedAt={preview.startedAt}
          ilpCapS={preview.ilpCapS}
          messages={previewMessages}
        />
        {preview.status === "cancelled" && <p className="hint">Preview cancelled.</p>}
        {preview.table !== null && preview.table.cluster !== cluster && (
          <p className="hint" data-testid="preview-stale">
            The preview below is for {preview.table.cluster}; preview again for {cluster || "the chosen cluster"}.
          </p>
        )}
        {preview.table !== null && (
          <PreviewTable table={preview.table} offeredRps={preview.offeredRps} shown={shownPlacement} onShow={setShownPlacement} />
        )}
        {preview.table !== null && shownRow?.assignments && (
          <ProposedPlacement
            cluster={preview.table.cluster}
            algorithm={shownRow.algorithm}
            assignments={shownRow.assignments}
            onClose={() => setShownPlacement(null)}
          />
        )}
      </section>

      <section className="deploy-section">
        <h3>Deploy</h3>
        {canDeploy ? (
          <DeployForm
            algorithm={algorithm}
            best={preview.table?.best ?? null}
            onAlgorithm={(a) => {
              setAlgorithm(a);
              deployStart.clearError();
            }}
            onDeploy={() => void deploy()}
            disabled={jobActive}
            submitting={deployStart.submitting}
            cluster={cluster}
            messages={deployMessages}
          />
        ) : (
          <p className="hint">This token cannot deploy (it needs the deploy scope); previews still work.</p>
        )}
        {current !== null && (
          <JobPanel current={current} poll={poll} follow={follow} onViewPlacement={onDeployed} onDismiss={dismiss} />
        )}
      </section>
    </div>
  );
}
