import type { DagDocument } from "./dagDocument";
import { fieldLabel } from "./errorText";
import type { EditorValidation } from "./useEditorValidation";

interface ValidationSummaryProps {
  validation: EditorValidation;
  /** Nothing typed or added yet: a hint instead of errors. */
  quiet: boolean;
  /** For naming the nodes and edges at fault. */
  doc: DagDocument;
}

/** Whether the DAG is valid, and every problem with where it is (in plain words). */
export function ValidationSummary({ validation, quiet, doc }: ValidationSummaryProps) {
  if (quiet) {
    return (
      <section className="validation-summary" data-testid="validation-summary" data-valid="false" data-source="none">
        Add a microservice and name the application: the DAG is checked as you go.
      </section>
    );
  }
  const checked = validation.source === "server" ? "checked by the server" : "checked locally; server check pending";
  const nodeIds = doc.nodes.map((n) => n.id);
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
          <strong>Not valid yet: {validation.errors.length} problem(s)</strong>
          <ul>
            {validation.errors.map((e, i) => (
              <li key={i}>
                <span className="validation-field" title={e.field}>
                  {fieldLabel(e.field, nodeIds, doc.edges)}
                </span>
                : {e.message}
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
