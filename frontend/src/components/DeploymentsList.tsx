import { type DeploymentRow, listDeployments } from "../api/client";
import { usePage } from "../hooks/usePage";
import { formatInstanceStates, formatTime, shortId, stateTone } from "../lib/format";
import { routeHref } from "../lib/route";
import { ErrorDetail } from "./ErrorDetail";
import { type Column, PagedTable } from "./PagedTable";

const columns: Column<DeploymentRow>[] = [
  { header: "Deployment", cell: (d) => <code title={d.id}>{shortId(d.id)}</code> },
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
    header: "State",
    cell: (d) => (
      <>
        <span className={`badge ${stateTone(d.state)}`}>{d.state}</span>
        <ErrorDetail error={d.error} />
      </>
    ),
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

export function DeploymentsList() {
  const page = usePage("deployments", listDeployments);
  return (
    <section className="panel list-panel" aria-labelledby="deployments-title">
      <h2 id="deployments-title">Deployments</h2>
      <PagedTable
        kind="deployments"
        page={page}
        columns={columns}
        rowKey={(d) => d.id}
        empty="No deployments yet. Open an application and deploy it to a cluster."
      />
    </section>
  );
}
