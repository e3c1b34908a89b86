import { type ApplicationRow, listApplications } from "../api/client";
import { usePage } from "../hooks/usePage";
import { formatTime } from "../lib/format";
import { routeHref } from "../lib/route";
import { type Column, PagedTable } from "./PagedTable";

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

export function ApplicationsList({ canWrite }: { canWrite: boolean }) {
  const page = usePage("applications", listApplications);
  return (
    <section className="panel list-panel" aria-labelledby="applications-title">
      <div className="panel-head">
        <h2 id="applications-title">Applications</h2>
        {canWrite && <a href={routeHref({ name: "editor" })}>New application</a>}
      </div>
      <PagedTable
        kind="applications"
        page={page}
        columns={columns}
        rowKey={(a) => a.name}
        empty="No applications yet. Draw one in the editor or start from a paper template on the home page."
      />
    </section>
  );
}
