import type { HealthState } from "../lib/health";
import { readinessRows, readinessSummary } from "../lib/readiness";

const connectionText = { connecting: "connecting…", up: "up", lost: "unreachable" } as const;
const connectionClass = { connecting: "pending", up: "ok", lost: "bad" } as const;

export function StatusPanel({ health }: { health: HealthState }) {
  const rows = readinessRows(health.readiness);
  const ready = health.readiness?.status === "ready";

  return (
    <section className="panel" aria-labelledby="status-title">
      <h2 id="status-title">Status</h2>
      <p>
        API: <span className={`badge ${connectionClass[health.connection]}`}>
          {connectionText[health.connection]}
        </span>{" "}
        Readiness: <span className={`badge ${ready ? "ok" : "bad"}`}>{readinessSummary(health.readiness)}</span>
      </p>
      {health.error !== null && <p className="error">{health.error}</p>}
      {rows.length > 0 && (
        <table className="checks">
          <tbody>
            {rows.map((row) => (
              <tr key={row.name}>
                <th scope="row">{row.label}</th>
                <td>
                  <span className={`badge ${row.ok ? "ok" : "bad"}`}>{row.ok ? "ok" : "failing"}</span>
                </td>
                <td className="detail">{row.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {health.checkedAt !== null && (
        <p className="muted">
          {health.connection === "lost" ? "Last known state, checked " : "Checked "}
          at {health.checkedAt.toLocaleTimeString()}
        </p>
      )}
    </section>
  );
}
