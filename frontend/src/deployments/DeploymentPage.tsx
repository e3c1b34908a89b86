import { useState } from "react";
import type { DeploymentRow } from "../api/client";
import { DeploymentStatusSummary } from "../components/DeploymentStatus";
import { useDeploymentFollow } from "../deploy/useDeploymentFollow";
import { algorithmLabel } from "../deploy/deployPreview";
import { isSettling } from "../lib/deploymentStatus";
import { formatInstanceStates, formatTime, shortId } from "../lib/format";
import { routeHref } from "../lib/route";
import { DeploymentEvents } from "./DeploymentEvents";
import "./deployments.css";
import { InstancesTable } from "./InstancesTable";
import { ModelledVsMeasured } from "./ModelledVsMeasured";
import { RollPanel } from "./RollPanel";
import { UndeployDialog } from "./UndeployDialog";

/** What changes when its agents answer: the instances and events are read again when it does. */
function answersKey(d: DeploymentRow | null): string {
  return d === null ? "" : `${d.status}|${JSON.stringify(d.instance_states)}|${d.updated_at}`;
}

/** `#/deployments/<id>`: one deployment — what it is, its status and why, its instances with their states and
 * the agents' refusals, its prediction beside what is measured, and its events. */
export function DeploymentPage({ deploymentId, canDeploy }: { deploymentId: string; canDeploy: boolean }) {
  const follow = useDeploymentFollow(deploymentId, true);
  const d = follow.deployment;
  const key = answersKey(d);
  const [undeploying, setUndeploying] = useState(false);
  const [undeployed, setUndeployed] = useState(false);
  return (
    <div className="deployment-page">
      <p className="breadcrumb">
        <a href={routeHref({ name: "deployments" })}>Deployments</a> /
      </p>
      <section className="panel" aria-labelledby="deployment-title">
        <div className="panel-head">
          <h2 id="deployment-title">
            Deployment <code title={deploymentId}>{shortId(deploymentId)}</code>
          </h2>
          <span className="actions">
            {d !== null && isSettling(d.status) && <span className="muted">following the agents' answers…</span>}
            <button type="button" onClick={follow.refresh} data-testid="deployment-refresh">
              Refresh
            </button>
            {canDeploy && d !== null && !undeployed && (
              <button type="button" className="destructive" onClick={() => setUndeploying(true)} data-testid="undeploy">
                Undeploy
              </button>
            )}
          </span>
        </div>
        {undeployed && (
          <p className="ok" role="status" data-testid="undeployed">
            Undeployed: its instances were removed from their agents.{" "}
            <a href={routeHref({ name: "deployments" })}>Deployments</a>
          </p>
        )}
        {follow.loading && <p className="muted">Loading…</p>}
        {follow.error !== null && !undeployed && (
          <p className="error" role="alert">
            {follow.error}
          </p>
        )}
        {follow.connectionLost && (
          <p className="error" role="alert">
            Cannot reach the E3 API — still retrying; what is shown may be old.
          </p>
        )}
        {d !== null && (
          <>
            <dl className="deployment-facts" data-testid="deployment-facts">
              <div>
                <dt>Application</dt>
                <dd>
                  <a href={routeHref({ name: "application", application: d.application })}>{d.application}</a> v{d.version}
                </dd>
              </div>
              <div>
                <dt>Cluster</dt>
                <dd>
                  <a href={routeHref({ name: "cluster", cluster: d.cluster })} data-testid="deployment-cluster">
                    {d.cluster}
                  </a>{" "}
                  <span className="muted">
                    (<a href={routeHref({ name: "dashboard", cluster: d.cluster })}>live dashboard</a>)
                  </span>
                </dd>
              </div>
              <div>
                <dt>Algorithm</dt>
                <dd>
                  {algorithmLabel(d.algorithm)}
                  {d.anti_affinity && <span className="muted"> · shards on distinct servers</span>}
                </dd>
              </div>
              <div>
                <dt>Instances</dt>
                <dd>
                  {d.instances.toLocaleString("en-US")}
                  {formatInstanceStates(d.instance_states) !== "" && <span className="muted"> · {formatInstanceStates(d.instance_states)}</span>}
                </dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>{formatTime(d.created_at)}</dd>
              </div>
              <div>
                <dt>Placement</dt>
                <dd>
                  {d.state}
                  {d.job_id && (
                    <span className="muted">
                      {" "}
                      · job <code title={d.job_id}>{shortId(d.job_id)}</code>
                    </span>
                  )}
                </dd>
              </div>
            </dl>
            <DeploymentStatusSummary deployment={d} />
          </>
        )}
      </section>
      {undeploying && d !== null && (
        <UndeployDialog
          deployment={d}
          onDone={() => {
            setUndeploying(false);
            setUndeployed(true);
          }}
          onCancel={() => setUndeploying(false)}
        />
      )}
      {d !== null && !undeployed && (
        <>
          {canDeploy && d.state === "placed" && <RollPanel deployment={d} />}
          <InstancesTable deploymentId={d.id} refreshKey={key} />
          <ModelledVsMeasured deployment={d} />
          <DeploymentEvents deployment={d} refreshKey={key} />
        </>
      )}
    </div>
  );
}
