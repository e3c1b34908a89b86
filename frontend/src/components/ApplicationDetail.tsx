import { type ApplicationVersionRow, listApplicationVersions } from "../api/client";
import { usePage } from "../hooks/usePage";
import { formatTime } from "../lib/format";
import { routeHref } from "../lib/route";
import { type Column, PagedTable } from "./PagedTable";

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

/** One application: its versions, newest first as the API lists them, with edit and deploy links. */
export function ApplicationDetail({ name, canWrite, canDeploy }: Props) {
  const page = usePage(`versions:${name}`, (query, signal) => listApplicationVersions(name, query, signal));
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
    </section>
  );
}
