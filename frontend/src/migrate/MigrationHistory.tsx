import { useCallback, useEffect } from "react";
import { type MigrationRow, listMigrations } from "../api/client";
import { type Column, PagedTable } from "../components/PagedTable";
import { usePage } from "../hooks/usePage";
import { formatTime, shortId } from "../lib/format";
import { stepTimings, stepsTotalMs } from "./steps";

export interface MigrationHistoryProps {
  cluster: string;
  /** Changes when a migration may have started or ended (the list is fetched again). */
  refreshKey: number;
  instanceLabel: (instanceId: string) => string;
}

function tone(state: string): string {
  return state === "succeeded" ? "ok" : state === "failed" || state === "rolled_back" ? "bad" : "pending";
}

/** Migrations on the cluster, newest first, with each step's milliseconds. */
export function MigrationHistory({ cluster, refreshKey, instanceLabel }: MigrationHistoryProps) {
  const fetchPage = useCallback((q: { limit: number; offset: number }, signal: AbortSignal) => listMigrations(cluster, q, signal), [cluster]);
  const page = usePage<MigrationRow>(`migrations:${cluster}`, fetchPage, 10);
  const { reload } = page;
  useEffect(() => {
    if (refreshKey > 0) reload();
  }, [refreshKey, reload]);

  const columns: Column<MigrationRow>[] = [
    { header: "Requested", cell: (m) => formatTime(m.created_at) },
    { header: "Instance", cell: (m) => <span title={m.instance_id}>{instanceLabel(m.instance_id)}</span> },
    { header: "From → to", cell: (m) => `${m.source_node ?? "?"} → ${m.target_node ?? "?"}` },
    { header: "Why", cell: (m) => (m.kind === "seed" ? "seed (failover)" : m.reason) },
    {
      header: "State",
      cell: (m) => (
        <span className={`badge ${tone(m.state)}`} title={(m.error as { message?: string } | null)?.message ?? undefined}>
          {m.state}
        </span>
      ),
    },
    { header: "Steps (ms)", cell: (m) => <span className="step-timings">{stepTimings(m) || "—"}</span> },
    { header: "Total ms", className: "num", cell: (m) => (stepsTotalMs(m) === null ? "—" : Math.round(stepsTotalMs(m)!)) },
  ];
  return (
    <section className="panel migrate-history" aria-label="Migration history">
      <div className="panel-head">
        <h3>Migration history</h3>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </div>
      <PagedTable
        kind="migrations"
        page={page}
        columns={columns}
        rowKey={(m) => shortId(m.id)}
        empty="No migration on this cluster yet."
      />
    </section>
  );
}
