import type { EditorValidation } from "./useEditorValidation";

/** Whether the DAG is valid, and every problem with where it is (the API's words). */
export function ValidationSummary({ validation }: { validation: EditorValidation }) {
  const checked = validation.source === "server" ? "checked by the server" : "checked locally; server check pending";
  return (
    <section
      className={`validation-summary ${validation.valid ? "ok" : "bad"}`}
      data-testid="validation-summary"
      data-valid={validation.valid ? "true" : "false"}
      data-source={validation.source}
    >
      {validation.valid ? (
        <strong>Valid DAG</strong>
      ) : (
        <>
          <strong>{validation.errors.length} problem(s)</strong>
          <ul>
            {validation.errors.map((e, i) => (
              <li key={i}>
                <code>{e.field}</code>: {e.message}
              </li>
            ))}
          </ul>
        </>
      )}
      <div className="muted small">{checked}</div>
      {validation.serverError && <div className="muted small">Server check unavailable: {validation.serverError}</div>}
    </section>
  );
}
