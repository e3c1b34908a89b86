import { useEffect, useRef, useState } from "react";
import { api, unwrap } from "../api/http";
import type { components } from "../api/schema.gen";
import { InstanceStateBadge } from "../components/DeploymentStatus";
import { type Column, PagedTable } from "../components/PagedTable";
import { usePage } from "../hooks/usePage";
import { formatInstanceError } from "../lib/deploymentStatus";

type InstanceRow = components["schemas"]["InstancePublic"];
type StateFilter = "" | "failed" | "deploying" | "running" | "placed" | "seeding";

const FILTERS: { value: StateFilter; label: string }[] = [
  { value: "", label: "every instance" },
  { value: "failed", label: "refused by their agents" },
  { value: "deploying", label: "deploying" },
  { value: "seeding", label: "seeding" },
  { value: "running", label: "running" },
  { value: "placed", label: "placed, no agent" },
];

const columns: Column<InstanceRow>[] = [
  { header: "DAG node", cell: (i) => <strong>{i.dag_node}</strong> },
  { header: "Service", cell: (i) => i.service },
  { header: "Shard", cell: (i) => i.shard, className: "num" },
  { header: "Role", cell: (i) => (i.replica === 0 ? "primary" : `backup ${i.replica}`) },
  {
    header: "Node",
    cell: (i) => (
      <>
        {i.node} <span className="muted">({i.node_kind})</span>
      </>
    ),
  },
  { header: "Server", cell: (i) => i.server },
  { header: "State", cell: (i) => <InstanceStateBadge state={i.state} error={i.error} /> },
  {
    header: "Reason",
    cell: (i) => {
      const refusal = formatInstanceError(i.error);
      return refusal === null ? <span className="muted">—</span> : <span className="error" data-testid="instance-reason">{refusal}</span>;
    },
  },
];

/** Its instances, a page at a time (GET /deployments/{id}/placement), optionally only those in one state; read
 * again when `refreshKey` changes (the agents answered). */
export function InstancesTable({ deploymentId, refreshKey }: { deploymentId: string; refreshKey: string }) {
  const [filter, setFilter] = useState<StateFilter>("");
  const page = usePage(`placement:${deploymentId}:${filter}`, async (query, signal) =>
    unwrap(
      await api.GET("/api/v1/deployments/{deployment_id}/placement", {
        params: { path: { deployment_id: deploymentId }, query: { ...query, ...(filter ? { state: filter } : {}) } },
        signal,
      }),
    ),
  );
  const { reload } = page;
  const shownKey = useRef(refreshKey);
  useEffect(() => {
    if (shownKey.current === refreshKey) return; // the first page is being read already
    shownKey.current = refreshKey;
    reload();
  }, [refreshKey, reload]);

  return (
    <section className="panel" aria-labelledby="deployment-instances-title">
      <div className="panel-head">
        <h3 id="deployment-instances-title">Instances</h3>
        <label className="actions">
          Show{" "}
          <select value={filter} onChange={(e) => setFilter(e.target.value as StateFilter)} data-testid="instances-filter">
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <PagedTable kind="instances" page={page} columns={columns} rowKey={(i) => i.id} empty="No instance in this state." />
    </section>
  );
}
