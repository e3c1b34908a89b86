import type { DeploymentRow } from "../api/client";
import { isSettling, statusTone } from "../lib/deploymentStatus";
import { formatInstanceStates, formatTime, shortId } from "../lib/format";
import { ErrorDetail } from "./ErrorDetail";
import { routeHref } from "../lib/route";
import { DeploymentStatusBadge } from "./DeploymentStatus";
import type { Column } from "./PagedTable";

/** Whether the list should be fetched again soon: a deployment on it is still being placed or deployed. */
export const isSettlingRow = (d: DeploymentRow) => isSettling(d.status);

/** The columns of a deployments list: the id links to the deployment's page; the status is the API's (from the
 * placement and the agents' answers), its reason on a second line when it is not running. */
export const deploymentColumns: Column<DeploymentRow>[] = [
  {
    header: "Deployment",
    cell: (d) => (
      <a href={routeHref({ name: "deployment", deployment: d.id })} title={d.id} data-testid="deployment-link">
        <code>{shortId(d.id)}</code>
      </a>
    ),
  },
  {
    header: "Application",
    cell: (d) => (
      <>
        <a href={routeHref({ name: "application", application: d.application })}>{d.application}</a>{" "}
        <span className="muted">v{d.version}</span>
      </>
    ),
  },
  { header: "Cluster", cell: (d) => <a href={routeHref({ name: "cluster", cluster: d.cluster })}>{d.cluster}</a> },
  { header: "Algorithm", cell: (d) => d.algorithm },
  {
    header: "Status",
    cell: (d) => {
      // A refused placement's error in full, beyond the message the reason line already says.
      const placementError = d.state === "failed" ? d.error : null;
      return (
        <>
          <DeploymentStatusBadge status={d.status} reason={d.status_reason} />
          {d.status_reason && d.status !== "deploying" && (
            <div className={`status-reason is-${statusTone(d.status)}`} data-testid="status-reason">
              {d.status_reason}
            </div>
          )}
          {placementError !== null && <ErrorDetail error={placementError} shownMessage={d.status_reason ?? undefined} />}
        </>
      );
    },
  },
  {
    header: "Instances",
    cell: (d) => {
      const states = formatInstanceStates(d.instance_states);
      return (
        <>
          {d.instances.toLocaleString("en-US")}
          {states !== "" && <div className="muted">{states}</div>}
        </>
      );
    },
    className: "num",
  },
  { header: "Created", cell: (d) => formatTime(d.created_at), className: "nowrap" },
];
