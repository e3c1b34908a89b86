import { RefusalMessage } from "../components/RefusalMessage";
import { describeSource, ORCHESTRATOR_MODES } from "./orchestratorModes";
import { useOrchestratorMode } from "./useOrchestratorMode";

/** The orchestrator's mode in force, what each mode means, and the switch (for a token with scope admin). */
export function OrchestratorPanel({ canChange }: { canChange: boolean }) {
  const { current, loadError, saving, refusal, change } = useOrchestratorMode();
  return (
    <section className="panel" aria-labelledby="orchestrator-title" data-testid="orchestrator-panel">
      <h2 id="orchestrator-title">Orchestrator mode</h2>
      {loadError !== null && (
        <p className="error" role="alert">
          {loadError}
        </p>
      )}
      {current !== null && (
        <p data-testid="orchestrator-current">
          In force: <strong>{current.mode}</strong> <span className="muted">({describeSource(current.source)})</span>
        </p>
      )}
      <fieldset className="mode-options" disabled={!canChange || current === null || saving !== null}>
        <legend className="muted">
          {canChange ? "The controller follows a change within about a second; it is audited." : "Changing the mode needs a token with scope admin."}
        </legend>
        {ORCHESTRATOR_MODES.map(({ mode, label, meaning }) => (
          <label key={mode} className={current?.mode === mode ? "mode-option current" : "mode-option"}>
            <input
              type="radio"
              name="orchestrator-mode"
              value={mode}
              data-testid={`orchestrator-mode-${mode}`}
              checked={current?.mode === mode}
              onChange={() => change(mode)}
            />
            <span>
              <strong>{label}</strong>
              {saving === mode && <span className="muted"> — setting…</span>}
              <br />
              <span className="muted">{meaning}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <RefusalMessage refusal={refusal} testId="orchestrator-refusal" />
    </section>
  );
}
