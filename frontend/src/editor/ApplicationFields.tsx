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

/** The application's name and description, each with its errors. */
export function ApplicationFields({ doc, errors, editable, nameFixed, push }: ApplicationFieldsProps) {
  const nameErrors = errors.get("metadata.name") ?? [];
  const descriptionErrors = errors.get("metadata.description") ?? [];
  return (
    <>
      <label className="properties">
        Name
        <input
          type="text"
          data-testid="app-name"
          value={doc.name}
          readOnly={!editable || nameFixed}
          onChange={(e) => push((d) => ({ ...d, name: e.target.value }), "metadata.name")}
        />
      </label>
      {nameErrors.map((m, i) => (
        <div key={i} className="field-error">
          {m}
        </div>
      ))}
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
