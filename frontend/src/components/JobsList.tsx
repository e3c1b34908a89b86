import { type JobRow, listJobs } from "../api/client";
import { usePage } from "../hooks/usePage";
import { useReloadWhile } from "../hooks/useReloadWhile";
import { formatProgress, formatTime, shortId, stateTone } from "../lib/format";
import { ErrorDetail } from "./ErrorDetail";
import { type Column, PagedTable } from "./PagedTable";

/** While a job on the page is queued or running, the page is fetched again this often. */
const POLL_MS = 2_000;

const isActive = (job: JobRow) => job.state === "queued" || job.state === "running";

const columns: Column<JobRow>[] = [
  { header: "Job", cell: (j) => <code title={j.id}>{shortId(j.id)}</code> },
  { header: "Kind", cell: (j) => j.kind },
  { header: "State", cell: (j) => <span className={`badge ${stateTone(j.state)}`}>{j.state}</span> },
  {
    header: "Progress",
    cell: (j) => (
      <span className="progress-cell">
        <progress value={Math.min(1, Math.max(0, j.progress))} max={1} /> {formatProgress(j.progress)}
      </span>
    ),
    className: "nowrap",
  },
  {
    header: "Message",
    cell: (j) => (
      <>
        {j.message !== "" ? j.message : <span className="muted">—</span>}
        <ErrorDetail error={j.error} shownMessage={j.message} />
      </>
    ),
  },
  { header: "Created", cell: (j) => formatTime(j.created_at), className: "nowrap" },
  { header: "Finished", cell: (j) => formatTime(j.finished_at), className: "nowrap" },
];

export function JobsList() {
  const page = usePage("jobs", listJobs);
  const active = page.items.some(isActive);
  useReloadWhile(active, page.reload, POLL_MS);

  return (
    <section className="panel list-panel" aria-labelledby="jobs-title">
      <div className="panel-head">
        <h2 id="jobs-title">Jobs</h2>
        {active && <span className="muted">updating every {POLL_MS / 1000} s while jobs run</span>}
      </div>
      <PagedTable kind="jobs" page={page} columns={columns} rowKey={(j) => j.id} empty="No jobs yet." />
    </section>
  );
}
