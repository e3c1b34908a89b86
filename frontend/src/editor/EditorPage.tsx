import "@xyflow/react/dist/style.css";
import "./editor.css";

import { ReactFlowProvider } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState, type ChangeEvent } from "react";

import { api, ApiError, unwrap } from "../api/http";
import {
  addEdge,
  addNode,
  autoLayout,
  EMPTY_DOCUMENT,
  fromSpec,
  fromStoredDraft,
  movedNodes,
  parseYaml,
  removeElements,
  specKey,
  toSpec,
  toStoredDraft,
  toYaml,
  updateNode,
  type DagDocument,
  type DraftNode,
} from "./dagDocument";
import { DagCanvas } from "./DagCanvas";
import { EtagConflictDialog } from "./EtagConflictDialog";
import { Palette } from "./Palette";
import { PropertiesPanel } from "./PropertiesPanel";
import { ValidationSummary } from "./ValidationSummary";
import { useCatalog } from "./useCatalog";
import { useDraft } from "./useDraft";
import { useEditorHistory } from "./useEditorHistory";
import { useEditorValidation, type EditorValidation } from "./useEditorValidation";
import { describeError } from "../lib/errors";
import type { XY } from "../viz/dagLayout";
import { locateErrors, summaryMessage, type FieldError, type ServiceCatalog } from "./dagValidation";

export interface EditorPageProps {
  applicationName?: string;
  template?: string;
  canWrite: boolean;
  onDeploy?: (applicationName: string) => void;
}

/** Where the document is saved: a stored application (with the ETag it was loaded at) or nowhere yet. */
interface Target {
  appName: string | null;
  etag: string | null;
  source: string;
}

interface SaveState {
  saving: boolean;
  error: string | null;
  /** Field errors from a refused save, for the spec they were about. */
  errors: { key: string; errors: FieldError[] } | null;
  conflict: string | null;
  saved: { name: string; version: number } | null;
}

const IDLE: SaveState = { saving: false, error: null, errors: null, conflict: null, saved: null };

async function loadApplication(name: string): Promise<{ doc: DagDocument; etag: string }> {
  const body = unwrap(await api.GET("/api/v1/applications/{name}", { params: { path: { name } } }));
  return { doc: fromSpec(body.spec), etag: body.etag };
}

async function loadTemplate(name: string): Promise<DagDocument> {
  const result = await api.GET("/api/v1/templates/{name}", { params: { path: { name } }, parseAs: "text" });
  return parseYaml(unwrap(result) as string);
}

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName);
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
  const [target, setTarget] = useState<Target>({ appName: applicationName ?? null, etag: null, source: "new" });
  const [loadError, setLoadError] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [fitToken, setFitToken] = useState(0);
  const [selectedKey, setSelectedKey] = useState<string | null>(null);
  const [save, setSave] = useState<SaveState>(IDLE);
  const [importError, setImportError] = useState<string | null>(null);
  const [paste, setPaste] = useState("");
  const baseline = useRef<DagDocument>(EMPTY_DOCUMENT);
  const draft = useDraft(target.appName ?? undefined);
  const editable = canWrite;

  const start = useCallback(
    (next: DagDocument, t: Target, fromDraft: boolean) => {
      history.reset(next);
      baseline.current = fromDraft ? EMPTY_DOCUMENT : next;
      setTarget(t);
      setSelectedKey(null);
      setSave(IDLE);
      setLoaded(true);
      setFitToken((n) => n + 1);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [history.reset],
  );

  // Load: the stored application, the template, or an empty document; a draft wins over each.
  useEffect(() => {
    let cancelled = false;
    setLoaded(false);
    setLoadError(null);
    const key = `e3.draft.${applicationName ?? "new"}`;
    let stored: ReturnType<typeof draft.read> = null;
    try {
      const text = window.localStorage.getItem(key);
      stored = text ? JSON.parse(text) : null;
    } catch {
      stored = null;
    }
    const restore = () => (stored ? fromStoredDraft(stored) : null);
    (async () => {
      try {
        if (applicationName) {
          const source = `app:${applicationName}`;
          try {
            const { doc: latest, etag } = await loadApplication(applicationName);
            if (cancelled) return;
            const fromDraft = stored && stored.source === source ? restore() : null;
            start(fromDraft ?? latest, { appName: applicationName, etag: (fromDraft && stored?.etag) || etag, source }, !!fromDraft);
          } catch (e) {
            const fromDraft = stored && stored.source === source ? restore() : null;
            if (cancelled) return;
            if (!fromDraft) throw e;
            start(fromDraft, { appName: applicationName, etag: stored?.etag ?? null, source }, true);
            setLoadError(`Could not load ${applicationName} (${describeError(e)}); showing your unsaved draft.`);
          }
        } else if (template) {
          const source = `template:${template}`;
          const fromDraft = stored && stored.source === source ? restore() : null;
          const next = fromDraft ?? (await loadTemplate(template));
          if (!cancelled) start(next, { appName: null, etag: null, source }, !!fromDraft);
        } else {
          const fromDraft = stored ? restore() : null;
          start(fromDraft ?? EMPTY_DOCUMENT, { appName: null, etag: null, source: stored?.source ?? "new" }, !!fromDraft);
        }
      } catch (e) {
        if (!cancelled) {
          setLoadError(describeError(e));
          setLoaded(true);
        }
      }
    })();
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [applicationName, template, start]);

  // Keep unsaved work in localStorage, so a reload or a failed save loses nothing.
  useEffect(() => {
    if (!loaded) return;
    if (doc === baseline.current) return;
    draft.write(toStoredDraft(doc, target.appName ? `app:${target.appName}` : target.source, target.etag));
  }, [doc, loaded, target, draft]);

  // Undo/redo from the keyboard (text fields keep their own undo).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || isTyping(e.target)) return;
      const k = e.key.toLowerCase();
      if (k === "z" && !e.shiftKey) {
        e.preventDefault();
        history.undo();
      } else if ((k === "z" && e.shiftKey) || k === "y") {
        e.preventDefault();
        history.redo();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [history.undo, history.redo]);

  // --- validation: only when the spec changes, never on a drag -------------------------------
  const key = useMemo(() => specKey(doc), [doc.name, doc.description, doc.labels, doc.nodes, doc.edges]); // eslint-disable-line react-hooks/exhaustive-deps
  const spec = useMemo(() => toSpec(doc), [key]); // eslint-disable-line react-hooks/exhaustive-deps
  const services = useMemo<ServiceCatalog | null>(
    () => (catalog.services.length > 0 ? Object.fromEntries(catalog.services.map((s) => [s.name, s.platforms])) : null),
    [catalog.services],
  );
  const hostOnly = useMemo(
    () => new Set(catalog.services.filter((s) => s.platforms.length === 1 && s.platforms[0] === "host").map((s) => s.name)),
    [catalog.services],
  );
  const checked = useEditorValidation(spec, key, services, loaded);
  const validation: EditorValidation = useMemo(() => {
    if (save.errors && save.errors.key === key) {
      const errors = save.errors.errors;
      return { valid: false, message: summaryMessage(errors), errors, source: "server", serverError: null };
    }
    return checked;
  }, [checked, save.errors, key]);
  const located = useMemo(
    () => locateErrors(validation.errors, doc.nodes.map((n) => n.id), doc.edges),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [validation.errors, key],
  );

  // --- edits -----------------------------------------------------------------------------------
  const onDropService = useCallback(
    (service: string, at: XY) => {
      let added: string | null = null;
      history.push((d) => {
        const r = addNode(d, service, at);
        added = r.key;
        return r.doc;
      });
      if (added) setSelectedKey(added);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [history.push],
  );
  const onAddFromPalette = useCallback(
    (service: string) => {
      const maxX = Math.max(-220, ...Object.values(doc.positions).map((p) => p.x));
      onDropService(service, { x: maxX + 220, y: 40 });
    },
    [doc.positions, onDropService],
  );
  const onConnect = useCallback((from: string, to: string) => history.push((d) => addEdge(d, from, to)), [history.push]); // eslint-disable-line react-hooks/exhaustive-deps
  const onMove = useCallback((moves: Record<string, XY>) => history.push((d) => movedNodes(d, moves)), [history.push]); // eslint-disable-line react-hooks/exhaustive-deps
  const onDelete = useCallback(
    (keys: string[], edges: number[]) => history.push((d) => removeElements(d, keys, edges)),
    [history.push], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const onNodeChange = useCallback(
    (nodeKey: string, patch: Partial<Omit<DraftNode, "key">>, field: string) =>
      history.push((d) => updateNode(d, nodeKey, patch), `${nodeKey}.${field}`),
    [history.push], // eslint-disable-line react-hooks/exhaustive-deps
  );

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
  const onImportFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = "";
    if (file) importText(await file.text());
  };
  const onExport = () => {
    const blob = new Blob([toYaml(doc)], { type: "application/yaml" });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = `${doc.name || "application"}.yaml`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  // --- save ------------------------------------------------------------------------------------
  const doSave = async (ifMatch: boolean) => {
    const sentKey = key;
    setSave((s) => ({ ...s, saving: true, error: null, conflict: null }));
    try {
      const body = target.appName
        ? await api.PUT("/api/v1/applications/{name}", {
            params: { path: { name: target.appName }, header: ifMatch && target.etag ? { "if-match": target.etag } : {} },
            body: spec as never,
          })
        : await api.POST("/api/v1/applications", { body: spec as never });
      const app = unwrap(body);
      draft.clear();
      if (!target.appName) {
        try {
          window.localStorage.removeItem("e3.draft.new");
        } catch {
          // ignore
        }
      }
      baseline.current = doc;
      setTarget({ appName: app.name, etag: app.etag, source: `app:${app.name}` });
      setSave({ ...IDLE, saved: { name: app.name, version: app.latest_version } });
      if (window.location.hash !== `#/editor/${app.name}`) window.history.replaceState(null, "", `#/editor/${app.name}`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 412) {
        setSave({ ...IDLE, conflict: e.message });
      } else if (e instanceof ApiError && e.errors.length > 0) {
        setSave({ ...IDLE, error: e.message, errors: { key: sentKey, errors: e.errors as FieldError[] } });
      } else {
        setSave({ ...IDLE, error: describeError(e) });
      }
    }
  };
  const onReloadLatest = async () => {
    if (!target.appName) return;
    try {
      const { doc: latest, etag } = await loadApplication(target.appName);
      draft.clear();
      start(latest, { appName: target.appName, etag, source: `app:${target.appName}` }, false);
    } catch (e) {
      setSave({ ...IDLE, error: describeError(e) });
    }
  };

  const selectedIndex = doc.nodes.findIndex((n) => n.key === selectedKey);
  const selected = selectedIndex >= 0 ? doc.nodes[selectedIndex]! : null;
  const nameErrors = located.metadata.get("metadata.name") ?? [];
  const descriptionErrors = located.metadata.get("metadata.description") ?? [];
  const dirty = doc !== baseline.current;
  const undrawable = doc.edges.filter((e) => !doc.nodes.some((n) => n.id === e.from) || !doc.nodes.some((n) => n.id === e.to));

  return (
    <div className="editor-page">
      <Palette
        services={catalog.services}
        templates={catalog.templates}
        error={catalog.error}
        loading={catalog.loading}
        canEdit={editable}
        onAdd={onAddFromPalette}
        onTemplate={(n) => void onTemplate(n)}
      />
      <div className="editor-main">
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
          <button type="button" data-testid="auto-layout" onClick={() => { history.push((d) => autoLayout(d)); setFitToken((n) => n + 1); }}>
            Auto-layout
          </button>
          {canWrite && (
            <button type="button" data-testid="save-button" onClick={() => void doSave(true)} disabled={save.saving}>
              {save.saving ? "Saving…" : target.appName ? `Save ${target.appName}` : "Save new application"}
            </button>
          )}
          {dirty && <span className="muted small">unsaved changes (kept as a draft)</span>}
        </div>
        {loadError && <p className="error">{loadError}</p>}
        {importError && <p className="error">{importError}</p>}
        {save.error && <p className="error save-status">Save failed: {save.error}</p>}
        {save.saved && (
          <p className="save-status">
            Saved {save.saved.name} version {save.saved.version}.{" "}
            <a
              href={`#/deploy/${save.saved.name}`}
              data-testid="deploy-link"
              onClick={(e) => {
                if (onDeploy) {
                  e.preventDefault();
                  onDeploy(save.saved!.name);
                }
              }}
            >
              Deploy {save.saved.name}…
            </a>
          </p>
        )}
        <DagCanvas
          doc={doc}
          nodeErrors={located.nodes}
          edgeErrors={located.edges}
          hostOnly={hostOnly}
          selectedKey={selectedKey}
          editable={editable}
          fitToken={fitToken}
          onSelect={setSelectedKey}
          onDropService={onDropService}
          onConnect={onConnect}
          onMove={onMove}
          onDelete={onDelete}
        />
      </div>
      <aside className="editor-side">
        <h3>Application</h3>
        <label className="properties">
          Name
          <input
            type="text"
            data-testid="app-name"
            value={doc.name}
            readOnly={!editable || target.appName !== null}
            onChange={(e) => history.push((d) => ({ ...d, name: e.target.value }), "metadata.name")}
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
            onChange={(e) => history.push((d) => ({ ...d, description: e.target.value }), "metadata.description")}
          />
        </label>
        {descriptionErrors.map((m, i) => (
          <div key={i} className="field-error">
            {m}
          </div>
        ))}
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
          onChange={onNodeChange}
          onRemove={(k) => onDelete([k], [])}
        />
        <h3>Paste YAML</h3>
        <textarea className="yaml-paste" data-testid="yaml-paste" value={paste} onChange={(e) => setPaste(e.target.value)} placeholder="apiVersion: e3/v1 …" />
        <button type="button" data-testid="yaml-paste-import" onClick={() => importText(paste)} disabled={!paste.trim()}>
          Import pasted YAML
        </button>
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
