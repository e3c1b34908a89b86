import { listDeployments } from "../api/client";
import { usePage } from "../hooks/usePage";
import { useReloadWhile } from "../hooks/useReloadWhile";
import { deploymentColumns, isSettlingRow } from "./deploymentColumns";
import { PagedTable } from "./PagedTable";

/** While a deployment on the page is being placed or deployed, the page is fetched again this often. */
const POLL_MS = 2_000;

export function DeploymentsList() {
  const page = usePage("deployments", listDeployments);
  const settling = page.items.some(isSettlingRow);
  useReloadWhile(settling, page.reload, POLL_MS);

  return (
    <section className="panel list-panel" aria-labelledby="deployments-title">
      <div className="panel-head">
        <h2 id="deployments-title">Deployments</h2>
        {settling && <span className="muted">updating every {POLL_MS / 1000} s while deployments are placed or deployed</span>}
      </div>
      <PagedTable
        kind="deployments"
        page={page}
        columns={deploymentColumns}
        rowKey={(d) => d.id}
        empty="No deployments yet. Open an application and deploy it to a cluster."
      />
    </section>
  );
}
