import { useState } from "react";
import { type ApplicationVersionRow, listApplicationVersions, listDeployments } from "../api/client";
import { deploymentColumns, isSettlingRow } from "../components/deploymentColumns";
import { Notice } from "../components/Notice";
import { type Column, PagedTable } from "../components/PagedTable";
import { rowAction } from "../components/rowAction";
import { usePage } from "../hooks/usePage";
import { useReloadWhile } from "../hooks/useReloadWhile";
import { formatTime } from "../lib/format";
import { routeHref } from "../lib/route";
import { EnergyPanel } from "../energy/EnergyPanel";
import { DeleteApplicationDialog } from "./DeleteApplicationDialog";
import { DeleteVersionDialog } from "./DeleteVersionDialog";

/** While one of its deployments is being placed or deployed, they are fetched again this often. */
const POLL_MS = 2_000;

/** The DAG's node count; a version holds the whole document (apiVersion, kind, metadata, spec.nodes). */
function nodeCount(doc: Record<string, unknown>): string {
  const spec = typeof doc.spec === "object" && doc.spec !== null ? (doc.spec as Record<string, unknown>) : doc;
  return Array.isArray(spec.nodes) ? String(spec.nodes.length) : "—";
}

/** The versions table; `latest` is marked. */
const columnsFor = (latest: number | undefined): Column<ApplicationVersionRow>[] => [
  {
    header: "Version",
    cell: (v) => (
      <>
        {v.version}
        {v.version === latest && <span className="badge pending latest">latest</span>}
      </>
    ),
    className: "num",
  },
  { header: "Microservices", cell: (v) => nodeCount(v.spec), className: "num" },
  { header: "Digest", cell: (v) => <code title={v.digest}>{v.digest.slice(0, 12)}</code> },
  { header: "Saved by", cell: (v) => v.created_by ?? <span className="muted">—</span> },
  { header: "Saved", cell: (v) => formatTime(v.created_at), className: "nowrap" },
];

interface Props {
  name: string;
  canWrite: boolean;
  canDeploy: boolean;
  /** After the application was deleted (the page has nothing left to show). */
  onDeleted: () => void;
}

/** One application: its versions, newest first as the API lists them, with edit, deploy and delete; and its
 * deployments with their status. */
export function ApplicationPage({ name, canWrite, canDeploy, onDeleted }: Props) {
  const page = usePage(`versions:${name}`, (query, signal) => listApplicationVersions(name, query, signal));
  const deployments = usePage(`deployments:${name}`, (query, signal) => listDeployments(query, signal, { application: name }), 10);
  useReloadWhile(deployments.items.some(isSettlingRow), deployments.reload, POLL_MS);
  const [deletingApp, setDeletingApp] = useState(false);
  const [deletingVersion, setDeletingVersion] = useState<number | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // Newest first and never reused: the first row of the first page is the latest; no later page holds it.
  const latest = page.offset === 0 ? page.items[0]?.version : undefined;

  const columns = columnsFor(latest);
  const actions = rowAction<ApplicationVersionRow>("delete", "version", (v) => String(v.version), (v) =>
    setDeletingVersion(v.version),
  );

  return (
    <>
    <section className="panel list-panel" aria-labelledby="application-title">
      <p className="breadcrumb">
        <a href={routeHref({ name: "applications" })}>Applications</a> /
      </p>
      <div className="panel-head">
        <h2 id="application-title">{name}</h2>
        <span className="actions">
          {canWrite && <a href={routeHref({ name: "editor", application: name })}>edit</a>}
          {canDeploy && <a href={routeHref({ name: "deploy", application: name })}>deploy</a>}
          {canWrite && (
            <button type="button" className="link" data-testid="delete-application" onClick={() => setDeletingApp(true)}>
              delete
            </button>
          )}
        </span>
      </div>
      <Notice text={notice} testId="versions-notice" />
      <PagedTable
        kind="versions"
        caption="Versions"
        page={page}
        columns={canWrite ? [...columns, actions] : columns}
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
      {deletingApp && (
        <DeleteApplicationDialog name={name} onDeleted={onDeleted} onCancel={() => setDeletingApp(false)} />
      )}
      {deletingVersion !== null && (
        <DeleteVersionDialog
          name={name}
          version={deletingVersion}
          latest={deletingVersion === latest}
          onDeleted={() => {
            setNotice(`Deleted version ${deletingVersion} of ${name}.`);
            setDeletingVersion(null);
            page.reload();
          }}
          onCancel={() => setDeletingVersion(null)}
        />
      )}
    </section>
    <EnergyPanel scope={{ kind: "application", name }} title={`Energy of ${name}`} />
    </>
  );
}
