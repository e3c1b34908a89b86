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
import { NOTHING_SELECTED, selectOnly as only, type Selection } from "./selection";
import { useCatalog } from "./useCatalog";
import { useDagChecks } from "./useDagChecks";
import { useDagEdits } from "./useDagEdits";
import { useEditorHistory } from "./useEditorHistory";
import { useEditorSession } from "./useEditorSession";
import { useSelectionKeys } from "./useSelectionKeys";
import { useUndoRedoKeys } from "./useUndoRedoKeys";
import { useViewCentre } from "./useViewCentre";
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
  const [selection, setSelection] = useState<Selection>(NOTHING_SELECTED);
  const selectOnly = useCallback((key: string | null) => setSelection(only(key)), []);
  const [importError, setImportError] = useState<string | null>(null);
  const editable = canWrite;

  const session = useEditorSession({ applicationName, template, doc, reset: history.reset, selectOnly, setFitToken });
  const { target, setTarget, save, setSave } = session;
  useUndoRedoKeys(history.undo, history.redo);
  useSelectionKeys({ doc, selection, setSelection, push: history.push, editable });
  const { key, spec, hostOnly, configSchemas, validation, located, quiet, failure } = useDagChecks(doc, catalog.services, session.loaded, save);
  const viewCentre = useViewCentre();
  const edits = useDagEdits(history.push, doc.positions, selectOnly, viewCentre);
  const { doSave, onReloadLatest } = saveActions({ session, doc, spec, key, amend: history.amend });

  const onTemplate = useCallback(
    async (name: string) => {
      try {
        const next = await loadTemplate(name);
        history.push(next);
        setTarget({ appName: null, etag: null, source: `template:${name}` });
        selectOnly(null);
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
      selectOnly(null);
      setFitToken((n) => n + 1);
    } catch (e) {
      setImportError(describeError(e));
    }
  };

  // the properties panel shows a node selected alone
  const selectedKey = selection.nodes.length === 1 ? selection.nodes[0]! : null;
  const selectedIndex = doc.nodes.findIndex((n) => n.key === selectedKey);
  const selected = selectedIndex >= 0 ? doc.nodes[selectedIndex]! : null;
  // undefined until the catalogue has loaded; null for a service it does not know
  const selectedSchema =
    selected && configSchemas ? (Object.hasOwn(configSchemas, selected.service) ? configSchemas[selected.service] : null) : undefined;
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
        <EditorNotices loadError={session.loadError} importError={importError} save={save} failure={failure} onDeploy={onDeploy} />
        <DagCanvas
          doc={doc}
          nodeErrors={located.nodes}
          edgeErrors={located.edges}
          notices={located.canvas}
          hostOnly={hostOnly}
          selection={selection}
          editable={editable}
          fitToken={fitToken}
          onSelectionChange={setSelection}
          onDropService={edits.onDropService}
          onConnect={edits.onConnect}
          onMove={edits.onMove}
          onDelete={edits.onDelete}
        />
      </div>
      <aside className="editor-side">
        <h3>Application</h3>
        <ApplicationFields doc={doc} errors={located.metadata} editable={editable} nameFixed={target.appName !== null} push={history.push} />
        <ValidationSummary validation={validation} quiet={quiet} doc={doc} />
        {undrawable.length > 0 && (
          <p className="muted small">
            Not drawn (unknown node): {undrawable.map((e) => `${e.from} -> ${e.to}`).join(", ")}
          </p>
        )}
        <h3>Node</h3>
        {selection.nodes.length > 1 && (
          <p className="muted" data-testid="selection-count">
            {selection.nodes.length} nodes selected (Ctrl+C copies them, Delete removes them).
          </p>
        )}
        <PropertiesPanel
          node={selected}
          index={selectedIndex}
          errors={quiet ? [] : validation.errors}
          configSchema={selectedSchema}
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
