import { useState } from "react";
import { type ClusterRow, listClusters } from "../api/client";
import { Notice } from "../components/Notice";
import { type Column, PagedTable } from "../components/PagedTable";
import { rowAction } from "../components/rowAction";
import { usePage } from "../hooks/usePage";
import { formatServerTypes, formatTime } from "../lib/format";
import { routeHref } from "../lib/route";
import { describeSize, sizeOfCluster } from "./clusterSize";
import { DeleteClusterDialog } from "./DeleteClusterDialog";
import { NewClusterForm } from "./NewClusterForm";

const columns: Column<ClusterRow>[] = [
  { header: "Name", cell: (c) => <a href={routeHref({ name: "cluster", cluster: c.name })}>{c.name}</a> },
  { header: "Racks", cell: (c) => c.racks, className: "num" },
  { header: "Servers", cell: (c) => c.servers, className: "num" },
  { header: "Computing nodes", cell: (c) => c.nodes, className: "num" },
  { header: "Server types", cell: (c) => formatServerTypes(c.server_types) },
  { header: "Deployments", cell: (c) => c.deployments, className: "num" },
  { header: "Created", cell: (c) => formatTime(c.created_at), className: "nowrap" },
];

/** The clusters, with (for a token that may write) a form for a new one and a delete per row. */
export function ClustersPage({ canWrite }: { canWrite: boolean }) {
  const page = usePage("clusters", listClusters);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<ClusterRow | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const actions = rowAction<ClusterRow>("delete", "cluster", (c) => c.name, setDeleting);

  return (
    <section className="panel list-panel" aria-labelledby="clusters-title">
      <div className="panel-head">
        <h2 id="clusters-title">Clusters</h2>
        {canWrite && !creating && (
          <button type="button" data-testid="new-cluster" onClick={() => setCreating(true)}>
            New cluster
          </button>
        )}
      </div>
      {creating && (
        <NewClusterForm
          onCreated={(cluster) => {
            setCreating(false);
            setNotice(`Created cluster ${cluster.name}: ${describeSize(sizeOfCluster(cluster))}.`);
            page.reload();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      <Notice text={notice} testId="clusters-notice" />
      <PagedTable
        kind="clusters"
        page={page}
        columns={canWrite ? [...columns, actions] : columns}
        rowKey={(c) => c.name}
        empty={
          <>
            No clusters yet. Create one {canWrite ? "with New cluster, or " : ""}with{" "}
            <code>e3 cluster create --generator fattree --servers 3</code>.
          </>
        }
      />
      {deleting !== null && (
        <DeleteClusterDialog
          cluster={deleting}
          onDeleted={() => {
            setNotice(`Deleted cluster ${deleting.name} and its ${describeSize(sizeOfCluster(deleting))}.`);
            setDeleting(null);
            page.reload();
          }}
          onCancel={() => setDeleting(null)}
        />
      )}
    </section>
  );
}
