import { type ApplicationVersionRow, listApplicationVersions, listDeployments } from "../api/client";
import { usePage } from "../hooks/usePage";
import { useReloadWhile } from "../hooks/useReloadWhile";
import { formatTime } from "../lib/format";
import { routeHref } from "../lib/route";
import { deploymentColumns, isSettlingRow } from "./deploymentColumns";
import { type Column, PagedTable } from "./PagedTable";

/** While one of its deployments is being placed or deployed, they are fetched again this often. */
const POLL_MS = 2_000;

function nodeCount(spec: Record<string, unknown>): string {
  return Array.isArray(spec.nodes) ? String(spec.nodes.length) : "—";
}

const columns: Column<ApplicationVersionRow>[] = [
  { header: "Version", cell: (v) => v.version, className: "num" },
  { header: "Microservices", cell: (v) => nodeCount(v.spec), className: "num" },
  { header: "Digest", cell: (v) => <code title={v.digest}>{v.digest.slice(0, 12)}</code> },
  { header: "Saved by", cell: (v) => v.created_by ?? <span className="muted">—</span> },
  { header: "Saved", cell: (v) => formatTime(v.created_at), className: "nowrap" },
];

interface Props {
  name: string;
  canWrite: boolean;
  canDeploy: boolean;
}

/** One application: its versions, newest first as the API lists them, with edit and deploy links; and its
 * deployments with their status. */
export function ApplicationDetail({ name, canWrite, canDeploy }: Props) {
  const page = usePage(`versions:${name}`, (query, signal) => listApplicationVersions(name, query, signal));
  const deployments = usePage(`deployments:${name}`, (query, signal) => listDeployments(query, signal, { application: name }), 10);
  useReloadWhile(deployments.items.some(isSettlingRow), deployments.reload, POLL_MS);
  return (
    <section className="panel list-panel" aria-labelledby="application-title">
      <p className="breadcrumb">
        <a href={routeHref({ name: "applications" })}>Applications</a> /
      </p>
      <div className="panel-head">
        <h2 id="application-title">{name}</h2>
        <span className="actions">
          {canWrite && <a href={routeHref({ name: "editor", application: name })}>edit</a>}
          {canDeploy && <a href={routeHref({ name: "deploy", application: name })}>deploy</a>}
        </span>
      </div>
      <PagedTable
        kind="versions"
        caption="Versions"
        page={page}
        columns={columns}
        rowKey={(v) => String(v.version)}
        empty="No versions."
      />
      <PagedTable
        kind="application-deployments"
        caption="Deployments"
        page={deployments}
        columns={deploymentColumns}
        rowKey={(d) => d.id}
        empty="Not deployed yet."
      />
    </section>
  );
}
