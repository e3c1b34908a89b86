import type { DagDocument } from "./dagDocument";
import type { EditorHistory } from "./useEditorHistory";

interface ApplicationFieldsProps {
  doc: DagDocument;
  /** Messages by metadata field ("metadata.name"). */
  errors: ReadonlyMap<string, string[]>;
  editable: boolean;
  /** A stored application keeps its name. */
  nameFixed: boolean;
  push: EditorHistory<DagDocument>["push"];
}

/** The application's name and description, each with its errors (or, for the name, how to write one). */
export function ApplicationFields({ doc, errors, editable, nameFixed, push }: ApplicationFieldsProps) {
  const nameErrors = errors.get("metadata.name") ?? [];
  const descriptionErrors = errors.get("metadata.description") ?? [];
  const nameHint = nameErrors.length === 0 && editable && !nameFixed;
  return (
    <>
      <label className="properties">
        Name
        <input
          type="text"
          data-testid="app-name"
          value={doc.name}
          placeholder="e.g. shop"
          aria-describedby={nameHint ? "app-name-help" : undefined}
          readOnly={!editable || nameFixed}
          onChange={(e) => push((d) => ({ ...d, name: e.target.value }), "metadata.name")}
        />
      </label>
      {nameErrors.map((m, i) => (
        <div key={i} className="field-error">
          {m}
        </div>
      ))}
      {nameHint && (
        <div id="app-name-help" className="muted small" data-testid="app-name-hint">
          Name: lowercase letters, digits and '-' (up to 63, starting and ending with a letter or digit)
        </div>
      )}
      <label className="properties">
        Description
        <textarea
          data-testid="app-description"
          value={doc.description}
          readOnly={!editable}
          onChange={(e) => push((d) => ({ ...d, description: e.target.value }), "metadata.description")}
        />
      </label>
      {descriptionErrors.map((m, i) => (
        <div key={i} className="field-error">
          {m}
        </div>
      ))}
    </>
  );
}
