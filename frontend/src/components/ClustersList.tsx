import { type ClusterRow, listClusters } from "../api/client";
import { usePage } from "../hooks/usePage";
import { formatServerTypes, formatTime } from "../lib/format";
import { routeHref } from "../lib/route";
import { type Column, PagedTable } from "./PagedTable";

const columns: Column<ClusterRow>[] = [
  { header: "Name", cell: (c) => <a href={routeHref({ name: "cluster", cluster: c.name })}>{c.name}</a> },
  { header: "Racks", cell: (c) => c.racks, className: "num" },
  { header: "Servers", cell: (c) => c.servers, className: "num" },
  { header: "Computing nodes", cell: (c) => c.nodes, className: "num" },
  { header: "Server types", cell: (c) => formatServerTypes(c.server_types) },
  { header: "Deployments", cell: (c) => c.deployments, className: "num" },
  { header: "Created", cell: (c) => formatTime(c.created_at), className: "nowrap" },
];

export function ClustersList() {
  const page = usePage("clusters", listClusters);
  return (
    <section className="panel list-panel" aria-labelledby="clusters-title">
      <h2 id="clusters-title">Clusters</h2>
      <PagedTable
        kind="clusters"
        page={page}
        columns={columns}
        rowKey={(c) => c.name}
        empty={
          <>
            No clusters yet. Create one with <code>e3 cluster create --generator fattree --servers 3</code>.
          </>
        }
      />
    </section>
  );
}
