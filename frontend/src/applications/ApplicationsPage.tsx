import { useState } from "react";
import { type ApplicationRow, listApplications } from "../api/client";
import { Notice } from "../components/Notice";
import { type Column, PagedTable } from "../components/PagedTable";
import { rowAction } from "../components/rowAction";
import { usePage } from "../hooks/usePage";
import { formatTime } from "../lib/format";
import { routeHref } from "../lib/route";
import { DeleteApplicationDialog } from "./DeleteApplicationDialog";

const columns: Column<ApplicationRow>[] = [
  {
    header: "Name",
    cell: (a) => <a href={routeHref({ name: "application", application: a.name })}>{a.name}</a>,
  },
  { header: "Description", cell: (a) => a.description ?? <span className="muted">—</span> },
  { header: "Latest version", cell: (a) => a.latest_version, className: "num" },
  { header: "Instances", cell: (a) => a.instances.toLocaleString("en-US"), className: "num" },
  { header: "Updated", cell: (a) => formatTime(a.updated_at), className: "nowrap" },
];

export function ApplicationsPage({ canWrite }: { canWrite: boolean }) {
  const page = usePage("applications", listApplications);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const actions = rowAction<ApplicationRow>("delete", "application", (a) => a.name, (a) => setDeleting(a.name));

  return (
    <section className="panel list-panel" aria-labelledby="applications-title">
      <div className="panel-head">
        <h2 id="applications-title">Applications</h2>
        {canWrite && <a href={routeHref({ name: "editor" })}>New application</a>}
      </div>
      <Notice text={notice} testId="applications-notice" />
      <PagedTable
        kind="applications"
        page={page}
        columns={canWrite ? [...columns, actions] : columns}
        rowKey={(a) => a.name}
        empty="No applications yet. Draw one in the editor or start from a paper template on the home page."
      />
      {deleting !== null && (
        <DeleteApplicationDialog
          name={deleting}
          onDeleted={() => {
            setNotice(`Deleted application ${deleting} and its versions.`);
            setDeleting(null);
            page.reload();
          }}
          onCancel={() => setDeleting(null)}
        />
      )}
    </section>
  );
}
