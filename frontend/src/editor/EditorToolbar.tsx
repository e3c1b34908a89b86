import type { ChangeEvent } from "react";

import { ShortcutsHelp } from "./ShortcutsHelp";
import type { EditorHistory } from "./useEditorHistory";

interface EditorToolbarProps {
  history: Pick<EditorHistory<unknown>, "canUndo" | "canRedo" | "undo" | "redo">;
  /** The text of a YAML (or JSON) file picked for import. */
  onImport: (text: string) => void;
  onExport: () => void;
  onAutoLayout: () => void;
  /** Whether the token may save (no save button otherwise). */
  canWrite: boolean;
  saving: boolean;
  /** The stored application a save goes to; null for a new one. */
  appName: string | null;
  onSave: () => void;
  dirty: boolean;
}

/** Undo/redo, YAML import and export, auto-layout, saving, and the keyboard shortcuts. */
export function EditorToolbar(props: EditorToolbarProps) {
  const { history, onImport, onExport, onAutoLayout, canWrite, saving, appName, onSave, dirty } = props;
  const onImportFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = "";
    if (file) onImport(await file.text());
  };
  return (
    <div className="editor-toolbar">
      <button type="button" data-testid="undo" onClick={history.undo} disabled={!history.canUndo} title="Undo (Ctrl+Z)">
        Undo
      </button>
      <button type="button" data-testid="redo" onClick={history.redo} disabled={!history.canRedo} title="Redo (Ctrl+Shift+Z / Ctrl+Y)">
        Redo
      </button>
      <label className="muted">
        Import YAML{" "}
        <input type="file" accept=".yaml,.yml,.json,application/yaml,text/yaml" data-testid="yaml-import" onChange={(e) => void onImportFile(e)} />
      </label>
      <button type="button" data-testid="yaml-export" onClick={onExport}>
        Export YAML
      </button>
      <button type="button" data-testid="auto-layout" onClick={onAutoLayout}>
        Auto-layout
      </button>
      {canWrite && (
        <button type="button" data-testid="save-button" onClick={onSave} disabled={saving}>
          {saving ? "Saving…" : appName ? `Save ${appName}` : "Save new application"}
        </button>
      )}
      {dirty && <span className="muted small">unsaved changes (kept as a draft)</span>}
      <ShortcutsHelp />
    </div>
  );
}
