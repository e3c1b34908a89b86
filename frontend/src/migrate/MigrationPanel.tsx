import type { MigrationAnswer } from "../api/client";
import { formatTime, shortId } from "../lib/format";
import type { FlowState } from "./migrationFlow";
import { formatChange, formatFigure, levelLabel, predictionRows } from "./prediction";
import { stepProgress, stepRows, stepsTotalMs } from "./steps";

export interface MigrationPanelProps {
  state: FlowState;
  /** "api shard 0 primary" for the instance being moved, by its id. */
  instanceLabel: (instanceId: string) => string;
  sourceName: (node: number) => string;
  onConfirm: () => void;
  onDismiss: () => void;
}

function Prediction({ answer }: { answer: MigrationAnswer }) {
  const p = answer.prediction;
  return (
    <>
      <table className="migrate-prediction" data-testid="migration-prediction">
        <thead>
          <tr>
            <th scope="col">predicted (model)</th>
            <th scope="col" className="num">before</th>
            <th scope="col" className="num">after</th>
            <th scope="col" className="num">change</th>
          </tr>
        </thead>
        <tbody>
          {predictionRows(answer).map((r) => (
            <tr key={r.key} data-testid={`prediction-${r.key}`}>
              <th scope="row">
                {r.label} <span className="muted">{r.unit}</span>
              </th>
              <td className="num">{formatFigure(r.before)}</td>
              <td className="num">{formatFigure(r.after)}</td>
              <td className={`num tone-${r.tone}`}>{formatChange(r) || formatFigure(r.change)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted migrate-note">
        Cost model's prediction (<code>source: {p.source}</code>), not a measurement
        {p.offered_rps != null ? `, at ${formatFigure(p.offered_rps)} req/s entry load` : ""}; the target is{" "}
        {levelLabel(p.level)} from the source{answer.stateful ? "; its state moves with it" : ""}.
      </p>
    </>
  );
}

/** The migration being proposed or under way: the predicted change, Confirm, then its steps. */
export function MigrationPanel({ state, instanceLabel, sourceName, onConfirm, onDismiss }: MigrationPanelProps) {
  if (state.phase === "idle") return null;
  const { move } = state;
  const title = `Move ${instanceLabel(move.instanceId)}`;
  const route = `${sourceName(move.source)} → ${move.targetName}`;
  const migration = state.phase === "running" || state.phase === "finished" ? state.migration : null;
  const answer = "answer" in state ? state.answer : null;
  return (
    <section className="panel migrate-panel" data-testid="migration-panel" aria-label="Migration" aria-live="polite">
      <div className="panel-head">
        <h3>{title}</h3>
        {state.phase !== "starting" && state.phase !== "running" && (
          <button type="button" onClick={onDismiss} aria-label="Close">
            ✕
          </button>
        )}
      </div>
      <p className="migrate-route">{route}</p>
      {state.phase === "predicting" && <p className="muted">Asking the API for a dry run…</p>}
      {state.phase === "refused" && (
        <p className="error" role="alert" data-testid="migration-refused">
          {state.step === "dry_run" ? "Refused" : "The migration was refused"}: {state.reason} <span className="muted">(<code className="error-code">{state.code}</code>)</span>
        </p>
      )}
      {answer && (state.phase === "predicted" || state.phase === "starting") && <Prediction answer={answer} />}
      {state.phase === "predicted" && (
        <div className="migrate-actions">
          <button type="button" className="primary" data-testid="migration-confirm" onClick={onConfirm}>
            Confirm migration
          </button>
          <button type="button" onClick={onDismiss}>
            Cancel
          </button>
        </div>
      )}
      {state.phase === "starting" && <p className="muted">Requesting the migration…</p>}
      {(state.phase === "running" || state.phase === "finished") && (
        <div data-testid="migration-steps">
          <p>
            <span className={`badge ${migration?.state === "succeeded" ? "ok" : migration && ["failed", "rolled_back"].includes(migration.state) ? "bad" : "pending"}`}>
              {migration?.state ?? "pending"}
            </span>{" "}
            <code>{shortId(state.migrationId)}</code>
            {migration && <span className="muted"> · requested {formatTime(migration.created_at)}</span>}
          </p>
          {migration && (
            <>
              <progress max={1} value={stepProgress(migration)} aria-label="Steps done" />
              <ol className="migrate-steps">
                {stepRows(migration).map((r) => (
                  <li key={r.name} className={`step-${r.status}`} data-testid={`step-${r.name}`}>
                    <span className="step-mark" aria-hidden>
                      {r.status === "done" ? "✓" : r.status === "failed" ? "✗" : r.status === "running" ? "…" : "·"}
                    </span>
                    <span className="step-name">{r.name}</span>
                    <span className="step-ms">{r.ms !== null ? `${Math.round(r.ms)} ms` : r.status}</span>
                    {r.detail && <span className="step-detail">{r.detail}</span>}
                  </li>
                ))}
              </ol>
              {state.phase === "finished" && (
                <p className={migration.state === "succeeded" ? "" : "error"} data-testid="migration-outcome">
                  {migration.state === "succeeded"
                    ? `Done: steps took ${Math.round(stepsTotalMs(migration) ?? 0)} ms. The instance is drawn on ${migration.target_node ?? move.targetName}.`
                    : `${migration.state.replace("_", " ")}: ${String((migration.error as { message?: string } | null)?.message ?? "no reason recorded")}`}
                </p>
              )}
            </>
          )}
        </div>
      )}
    </section>
  );
}
