import "@xyflow/react/dist/style.css";
import "./editor.css";

import { ReactFlowProvider } from "@xyflow/react";
import { useCallback, useState } from "react";

import { describeError } from "../lib/errors";
import { ApplicationFields } from "./ApplicationFields";
import { loadTemplate } from "./applicationApi";
import { autoLayout, EMPTY_DOCUMENT, parseYaml, type DagDocument } from "./dagDocument";
import { DagCanvas } from "./DagCanvas";
import { EditorNotices } from "./EditorNotices";
import { EditorToolbar } from "./EditorToolbar";
import { EtagConflictDialog } from "./EtagConflictDialog";
import { exportYaml } from "./exportYaml";
import { Palette } from "./Palette";
import { PropertiesPanel } from "./PropertiesPanel";
import { saveActions } from "./saveActions";
import { IDLE } from "./saveState";
import { useCatalog } from "./useCatalog";
import { useDagChecks } from "./useDagChecks";
import { useDagEdits } from "./useDagEdits";
import { useEditorHistory } from "./useEditorHistory";
import { useEditorSession } from "./useEditorSession";
import { useUndoRedoKeys } from "./useUndoRedoKeys";
import { ValidationSummary } from "./ValidationSummary";
import { YamlPaste } from "./YamlPaste";

export interface EditorPageProps {
  applicationName?: string;
  template?: string;
  canWrite: boolean;
  onDeploy?: (applicationName: string) => void;
}

/** The DAG editor: a new application, a stored one by name, or a paper template by name. */
export function EditorPage(props: EditorPageProps) {
  return (
    <ReactFlowProvider>
      <Editor {...props} />
    </ReactFlowProvider>
  );
}

function Editor({ applicationName, template, canWrite, onDeploy }: EditorPageProps) {
  const catalog = useCatalog();
  const history = useEditorHistory<DagDocument>(EMPTY_DOCUMENT);
  const doc = history.present;
  const [fitToken, setFitToken] = useState(0);
  const [selectedKey, setSelectedKey] = useState<string | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const editable = canWrite;

  const session = useEditorSession({ applicationName, template, doc, reset: history.reset, setSelectedKey, setFitToken });
  const { target, setTarget, save, setSave } = session;
  useUndoRedoKeys(history.undo, history.redo);
  const { key, spec, hostOnly, validation, located } = useDagChecks(doc, catalog.services, session.loaded, save.errors);
  const edits = useDagEdits(history.push, doc.positions, setSelectedKey);
  const { doSave, onReloadLatest } = saveActions({ session, doc, spec, key });

  const onTemplate = useCallback(
    async (name: string) => {
      try {
        const next = await loadTemplate(name);
        history.push(next);
        setTarget({ appName: null, etag: null, source: `template:${name}` });
        setSelectedKey(null);
        setSave(IDLE);
        setFitToken((n) => n + 1);
        window.history.replaceState(null, "", `#/templates/${name}`);
      } catch (e) {
        setImportError(`Could not load template ${name}: ${describeError(e)}`);
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [history.push],
  );

  const importText = (text: string) => {
    try {
      history.push(parseYaml(text));
      setImportError(null);
      setSelectedKey(null);
      setFitToken((n) => n + 1);
    } catch (e) {
      setImportError(describeError(e));
    }
  };

  const selectedIndex = doc.nodes.findIndex((n) => n.key === selectedKey);
  const selected = selectedIndex >= 0 ? doc.nodes[selectedIndex]! : null;
  const dirty = doc !== session.baseline.current;
  const undrawable = doc.edges.filter((e) => !doc.nodes.some((n) => n.id === e.from) || !doc.nodes.some((n) => n.id === e.to));

  return (
    <div className="editor-page">
      <Palette
        services={catalog.services}
        templates={catalog.templates}
        error={catalog.error}
        loading={catalog.loading}
        canEdit={editable}
        onAdd={edits.onAddFromPalette}
        onTemplate={(n) => void onTemplate(n)}
      />
      <div className="editor-main">
        <EditorToolbar
          history={history}
          onImport={importText}
          onExport={() => exportYaml(doc)}
          onAutoLayout={() => {
            history.push((d) => autoLayout(d));
            setFitToken((n) => n + 1);
          }}
          canWrite={canWrite}
          saving={save.saving}
          appName={target.appName}
          onSave={() => void doSave(true)}
          dirty={dirty}
        />
        <EditorNotices loadError={session.loadError} importError={importError} save={save} onDeploy={onDeploy} />
        <DagCanvas
          doc={doc}
          nodeErrors={located.nodes}
          edgeErrors={located.edges}
          hostOnly={hostOnly}
          selectedKey={selectedKey}
          editable={editable}
          fitToken={fitToken}
          onSelect={setSelectedKey}
          onDropService={edits.onDropService}
          onConnect={edits.onConnect}
          onMove={edits.onMove}
          onDelete={edits.onDelete}
        />
      </div>
      <aside className="editor-side">
        <h3>Application</h3>
        <ApplicationFields doc={doc} errors={located.metadata} editable={editable} nameFixed={target.appName !== null} push={history.push} />
        <ValidationSummary validation={validation} />
        {undrawable.length > 0 && (
          <p className="muted small">
            Not drawn (unknown node): {undrawable.map((e) => `${e.from} -> ${e.to}`).join(", ")}
          </p>
        )}
        <h3>Node</h3>
        <PropertiesPanel
          node={selected}
          index={selectedIndex}
          errors={validation.errors}
          editable={editable}
          onChange={edits.onNodeChange}
          onRemove={(k) => edits.onDelete([k], [])}
        />
        <h3>Paste YAML</h3>
        <YamlPaste onImport={importText} />
      </aside>
      {save.conflict && target.appName && (
        <EtagConflictDialog
          name={target.appName}
          message={save.conflict}
          onReload={() => void onReloadLatest()}
          onOverwrite={() => void doSave(false)}
          onCancel={() => setSave(IDLE)}
        />
      )}
    </div>
  );
}
